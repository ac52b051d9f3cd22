# diag (issue 7): hang reports, race detector, timeline, seeded schedules. test_diag runs the
# host program test_diag_host (examples' boilerplate + the buggy kernels of
# kernels/diag_bugs.c) under the HCEMU_* settings and checks the reports it prints.
include(${CMAKE_SOURCE_DIR}/cmake/HcemuKernel.cmake)
hcemu_add_kernel(diag_bugs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/diag_bugs.c
                 ENTRIES diag_ok diag_cycle diag_nobody diag_wrong_index diag_absorbed diag_slow
                         diag_past_buffer diag_read_race diag_ww_race diag_reuse diag_fan_ok
                         diag_fan_race
                 OUTPUT_DIR ${CMAKE_BINARY_DIR}/bin)
target_include_directories(diag_bugs PRIVATE ${CMAKE_SOURCE_DIR}/examples/common)
target_compile_options(diag_bugs PRIVATE -O0) # reports name exact kernel lines

add_executable(test_diag_host ${CMAKE_CURRENT_SOURCE_DIR}/test_diag_host.c)
target_link_libraries(test_diag_host PRIVATE hcemu_examples_common)
add_dependencies(test_diag_host diag_bugs hcemu-device)

emu_add_test(diag SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_diag.c
             LIBS PkgConfig::JSONC TIMEOUT 300)
add_dependencies(test_diag test_diag_host)
target_compile_definitions(test_diag PRIVATE
    DIAG_HOST="$<TARGET_FILE:test_diag_host>"
    DIAG_KERNEL_SRC="diag_bugs.c")

# Every example under HCEMU_RACECHECK=1 (and the watchdog at its default) reports nothing.
# Tests come before examples/ in the tree, so the programs are named by path, not target.
foreach(ex p2p allgather allreduce broadcast reduce_scatter alltoall)
    if(EXISTS ${CMAKE_SOURCE_DIR}/examples/${ex}/host.c)
        add_test(NAME diag_racecheck_${ex}
                 COMMAND ${CMAKE_BINARY_DIR}/bin/hcemu-example-${ex} --ranks 4 --bytes 64K
                         --iters 2)
        set_tests_properties(diag_racecheck_${ex} PROPERTIES TIMEOUT 120
            ENVIRONMENT "HCEMU_RACECHECK=1;HCEMU_DEVICES=4"
            FAIL_REGULAR_EXPRESSION "data race|hang: no task|race checker stopped")
    endif()
endforeach()
if(EXISTS ${CMAKE_SOURCE_DIR}/examples/p2p/host.c)
    add_test(NAME diag_racecheck_p2p_push
             COMMAND ${CMAKE_BINARY_DIR}/bin/hcemu-example-p2p --ranks 4 --bytes 64K --push)
    set_tests_properties(diag_racecheck_p2p_push PROPERTIES TIMEOUT 120
        ENVIRONMENT "HCEMU_RACECHECK=1;HCEMU_DEVICES=4"
        FAIL_REGULAR_EXPRESSION "data race|hang: no task|race checker stopped")
endif()
