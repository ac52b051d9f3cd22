# arch: the import graph of device/ (scripts/import-graph). Fails when a loop runs through the
# scheduler core (sched, task, spin) or when a loop that was broken comes back: fault and
# kernel (kernel.c answers fault.c through struct emu_fault_locator); dp_submit with dp_cache
# or dp_drain (dp_drain.c sets dp_submit.c's hooks).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
    add_test(NAME arch_import_graph
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph device
                     --deny sched --deny task --deny spin --deny fault+kernel
                     --deny dp_submit+dp_cache --deny dp_submit+dp_drain
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(arch_import_graph PROPERTIES TIMEOUT 60 LABELS "arch")
endif()
