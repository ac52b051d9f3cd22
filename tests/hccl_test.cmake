# The hccl_test-compatible tools (tools/hccl_test) as a user runs them: sweep sizes, output
# layout, -c 1 verdicts, -r, -p/-t, -B and refused options (test_hccl_test runs the tools).
emu_add_test(hccl_test SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_hccl_test.c TIMEOUT 300)
target_compile_definitions(test_hccl_test PRIVATE HT_BIN_DIR="$<TARGET_FILE_DIR:all_reduce_test>")
add_dependencies(test_hccl_test all_reduce_test all_gather_test reduce_scatter_test
                 broadcast_test reduce_test scatter_test)
