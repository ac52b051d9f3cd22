# model_time: HCEMU_TIME=model end to end (host/acl/model_time.c) - events around hcemu's
# built-in ring HcclAllReduce at 2, 4, 8 ranks and around a held-out ring AllGather kernel
# (kernels/model_ring_ag.c) against the closed form of their task graphs, across seeds; ranks
# as threads of child processes.
hcemu_add_kernel(model_kernels SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/model_ring_ag.c
                 ENTRIES model_ring_ag)
target_include_directories(model_kernels PRIVATE ${CMAKE_SOURCE_DIR}/include)
emu_add_test(model_time SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_model_time.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 300)
target_compile_definitions(test_model_time PRIVATE
    MODEL_KERNELS_JSON="${CMAKE_BINARY_DIR}/kernels/model_kernels.json")
add_dependencies(test_model_time model_kernels hcemu-device hcemu_collectives)
# The same with devices 1 and above on a second "host" (HCEMU_HOST_SPLIT, one job folder): the
# held-out ring kernel and the built-in collectives keep their closed forms through the
# network path (the transfers are described to the modelled clock as on one host).
if(UCX_FOUND)
    add_test(NAME model_time_net COMMAND test_model_time)
    set_tests_properties(model_time_net PROPERTIES TIMEOUT 300 LABELS "multihost"
                         ENVIRONMENT "HCEMU_HOST_SPLIT=1")
endif()
