# arch: the import graph of device/ (scripts/import-graph) has no loop at all. The loops broken
# so far: sched/task/spin never call up (hooks); fault and kernel (kernel.c answers fault.c
# through struct emu_fault_locator); dp_submit with dp_cache or dp_drain (dp_drain.c sets
# dp_submit.c's hooks); diag core and features (diagnostics.c starts the features); reduce.h
# and the kernel sets (reduce_types.h).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
    add_test(NAME arch_import_graph
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph device
                     --no-loops
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(arch_import_graph PROPERTIES TIMEOUT 60 LABELS "arch")
endif()
