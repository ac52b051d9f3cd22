# The HCCL control plane: communicators, rank graph, threads, channels, buffers, engine
# contexts (host/hccl/). Ranks as threads (test_comm), bad input
# (test_comm_bad) and ranks as processes (test_comm_proc). Each test owns a temporary job
# folder under /dev/shm and removes it.
set(EMU_COMM_UTIL ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c)
emu_add_test(comm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_comm.c ${EMU_COMM_UTIL}
             LIBS hcemu hcemu_common TIMEOUT 300)
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_bad.c)
    emu_add_test(comm_bad SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_bad.c ${EMU_COMM_UTIL}
                 LIBS hcemu hcemu_common TIMEOUT 120)
endif()
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_proc.c)
    emu_add_test(comm_proc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_proc.c ${EMU_COMM_UTIL}
                 LIBS hcemu hcemu_common TIMEOUT 300)
endif()
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_exchange_info.c)
    emu_add_test(exchange_info SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_exchange_info.c
                 ${EMU_COMM_UTIL} LIBS hcemu hcemu_common TIMEOUT 300)
endif()
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_ranktable.c)
    emu_add_test(ranktable SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ranktable.c ${EMU_COMM_UTIL}
                 LIBS hcemu hcemu_common TIMEOUT 120)
endif()
