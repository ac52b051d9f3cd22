# model: the modelled Atlas 350 clock (common/model/model.c, docs/MODEL.md) - simulated times of
# task graphs of known shape against their closed-form alpha-beta results, and a kernel's
# aclrtEventElapsedTime with HCEMU_TIME=model against the closed form of its graph, across
# seeds (the dp_exec program interpreter of tests/kernels, run by child processes).
emu_add_test(model SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_model.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c ${CMAKE_CURRENT_SOURCE_DIR}/model_graphs.c
             LIBS hcemu hcemu_common TIMEOUT 240)
target_compile_definitions(test_model PRIVATE
    DPC_KERNELS_JSON="${CMAKE_BINARY_DIR}/kernels/dpc_kernels.json")
add_dependencies(test_model dpc_kernels hcemu-device)
