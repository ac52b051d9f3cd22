# ACL graph capture (host/acl/acl_graph.c, docs/GRAPH_CAPTURE.md): kernel launches, copies,
# events across streams and built-in collectives at 2 and 3 rank threads are recorded, then
# replayed any number of times on any stream; each refusal has the runtime's code.
emu_add_test(graph_capture SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_graph_capture.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 240 ENV "HCEMU_LOG_LEVEL=warn")
add_dependencies(test_graph_capture krt_basic hcemu-device)
target_compile_definitions(test_graph_capture PRIVATE KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels")
