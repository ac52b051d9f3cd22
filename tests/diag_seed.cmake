# diag_seed (issue 7, seeded schedules): with HCEMU_SEED the timeline is reproducible. Runs the
# allreduce example twice per mode (ranks as threads, ranks as processes under hcemu-run)
# and compares the trace files byte for byte. examples/ and tools/ come after tests/ in the
# tree, so their targets are named through generator expressions.
emu_add_test(diag_seed SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_diag_seed.c
             LIBS PkgConfig::JSONC TIMEOUT 300)
add_dependencies(test_diag_seed hcemu-run hcemu-example-allreduce hcemu-device)
target_compile_definitions(test_diag_seed PRIVATE
    EX_ALLREDUCE="$<TARGET_FILE:hcemu-example-allreduce>"
    HCEMU_RUN="$<TARGET_FILE:hcemu-run>")
