# examples: end-to-end runs of every example (label e2e) and the hcemu-run tests.
#
# Each example runs at 1, 2, 3, 4 and 8 ranks, as threads of one process and as processes
# under hcemu-run, once below the HCCL buffer and once above it. HCCL_BUFFSIZE=1 makes the
# buffer 1 MB (2 MB if the library doubles it), so the large size (3 MiB per rank) always
# takes several chunks while the small one (64 KiB) fits in one.
# examples/ is added after tests/, so its targets are named through generator expressions.
set(EX_E2E_ENV "HCCL_BUFFSIZE=1" "HCEMU_LOG_LEVEL=warn")

# ex_e2e(<test name> <timeout s> COMMAND...)
function(ex_e2e name timeout)
    add_test(NAME ${name} COMMAND ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS "e2e" TIMEOUT ${timeout}
                         ENVIRONMENT "${EX_E2E_ENV}" FAIL_REGULAR_EXPRESSION ": FAIL ")
endfunction()

foreach(ex p2p allgather allreduce broadcast reduce_scatter alltoall)
    foreach(n 1 2 3 4 8)
        foreach(size small large)
            if(size STREQUAL "small")
                set(bytes 64K)
            else()
                set(bytes 3M)
            endif()
            ex_e2e(e2e_${ex}_${n}_threads_${size} 120
                   $<TARGET_FILE:hcemu-example-${ex}> --ranks ${n} --bytes ${bytes})
            if(n EQUAL 8)
                set(t 240) # eight processes and eight executors on two cores
            else()
                set(t 120)
            endif()
            ex_e2e(e2e_${ex}_${n}_procs_${size} ${t}
                   $<TARGET_FILE:hcemu-run> -n ${n} -- $<TARGET_FILE:hcemu-example-${ex}>
                   --bytes ${bytes})
        endforeach()
    endforeach()
endforeach()

# The variants: p2p's push flavour and a broadcast from a root other than 0.
foreach(n 2 3)
    ex_e2e(e2e_p2p_push_${n}_threads 120
           $<TARGET_FILE:hcemu-example-p2p> --push --ranks ${n} --bytes 3M)
    ex_e2e(e2e_p2p_push_${n}_procs 120
           $<TARGET_FILE:hcemu-run> -n ${n} $<TARGET_FILE:hcemu-example-p2p> --push --bytes 3M)
endforeach()
ex_e2e(e2e_broadcast_root2_4_threads 120
       $<TARGET_FILE:hcemu-example-broadcast> --root 2 --ranks 4 --bytes 3M)
ex_e2e(e2e_broadcast_root2_4_procs 120
       $<TARGET_FILE:hcemu-run> -n 4 $<TARGET_FILE:hcemu-example-broadcast> --root 2 --bytes 3M)
ex_e2e(e2e_demo 120 $<TARGET_FILE:hcemu-demo>)

# hcemu-run itself: usage, environment, output, failures, Ctrl-C, schedules, leftovers.
add_executable(test_run_rank ${CMAKE_CURRENT_SOURCE_DIR}/test_run_rank.c)
target_link_libraries(test_run_rank PRIVATE hcemu)
emu_add_test(run SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_run.c TIMEOUT 300 LABELS e2e)
add_dependencies(test_run test_run_rank hcemu-run hcemu-example-allgather hcemu-device)
target_compile_definitions(test_run PRIVATE
    HCEMU_RUN_BIN="$<TARGET_FILE:hcemu-run>"
    RUN_RANK_BIN="$<TARGET_FILE:test_run_rank>"
    EXAMPLE_ALLGATHER_BIN="$<TARGET_FILE:hcemu-example-allgather>")

# Past the old 64-device limit: 80 ranks as threads, small buffers (make scale runs 256).
ex_e2e(e2e_allgather_80_threads 240 $<TARGET_FILE:hcemu-example-allgather> --ranks 80 --bytes 4K --iters 1)
set_tests_properties(e2e_allgather_80_threads PROPERTIES LABELS "e2e;no-asan")
