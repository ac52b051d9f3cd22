# job_key: the job's key file, the rendezvous proofs and the executors' admission table.
emu_add_test(job_key SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_job_key.c
             ${CMAKE_SOURCE_DIR}/host/hccl/rdv/rdv_auth.c ${CMAKE_SOURCE_DIR}/device/net/net_admit.c
             LIBS hcemu_common PkgConfig::NETTLE)
target_include_directories(test_job_key PRIVATE ${CMAKE_SOURCE_DIR}/include)
