# multihost: jobs split over two "hosts" on this machine (separate job folders, rendezvous
# over TCP on loopback), 4+4 and 1+7, launched by one hcemu-run per
# host and by mpirun (skipped when mpirun is absent). Examples and hccl_test tools, with the
# bytes checked by the programs themselves.
set(MH_RUN ${CMAKE_CURRENT_SOURCE_DIR}/multihost/run_split.sh)
set(MH_ENV "HCCL_BUFFSIZE=1" "HCEMU_LOG_LEVEL=warn" "HCCL_CONNECT_TIMEOUT=60")

function(mh_test name expect)
    add_test(NAME ${name} COMMAND bash ${MH_RUN} ${CMAKE_BINARY_DIR}/bin ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS "e2e;multihost" TIMEOUT 240 SKIP_RETURN_CODE 77
                         ENVIRONMENT "${MH_ENV};MH_EXPECT=${expect};${MH_EXTRA}" PROCESSORS 2)
endfunction()
if(UCX_FOUND)
    set(MH_HAVE_UCX 1)
else()
    set(MH_HAVE_UCX 0)
endif()
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX}")

# hcemu-run: both splits, every example and the tools; mpirun: fewer (same code paths).
function(mh_set launcher a b exs tools)
    foreach(ex ${exs})
        mh_test(multihost_${ex}_${a}_${b}_${launcher} PASS ${launcher} ${a} ${b}
                $<TARGET_FILE:hcemu-example-${ex}> --bytes 1M)
    endforeach()
    foreach(tool ${tools})
        mh_test(multihost_${tool}_${a}_${b}_${launcher} success ${launcher} ${a} ${b}
                $<TARGET_FILE:${tool}> -b 64 -e 1M -f 128 -c 1 -n 1 -w 1)
    endforeach()
endfunction()
mh_set(hcemu-run 4 4 "p2p;allgather;allreduce" "all_reduce_test;all_gather_test")
mh_set(hcemu-run 1 7 "p2p;allgather;allreduce" "all_reduce_test")
mh_set(mpirun 4 4 "allreduce" "all_gather_test")
mh_set(mpirun 1 7 "allreduce" "")

# The same splits with the network path forced (each host its own HCEMU_HOST): every channel
# between the two hosts goes through UCX. Skipped (77) without UCX.
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX};MH_NET=1")
function(mh_net_set launcher a b exs tools)
    foreach(ex ${exs})
        mh_test(multihost_net_${ex}_${a}_${b}_${launcher} PASS ${launcher} ${a} ${b}
                $<TARGET_FILE:hcemu-example-${ex}> --bytes 1M)
    endforeach()
    foreach(tool ${tools})
        mh_test(multihost_net_${tool}_${a}_${b}_${launcher} success ${launcher} ${a} ${b}
                $<TARGET_FILE:${tool}> -b 64 -e 1M -f 128 -c 1 -n 1 -w 1)
    endforeach()
endfunction()
mh_net_set(hcemu-run 4 4 "p2p;allgather;allreduce;alltoall;broadcast;reduce_scatter"
           "all_reduce_test;all_gather_test")
mh_net_set(hcemu-run 1 7 "p2p;allgather;allreduce" "all_reduce_test")
mh_net_set(mpirun 4 4 "allreduce" "all_gather_test")
mh_net_set(mpirun 1 7 "allreduce" "")
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX}")

# Ranks of host b present another secret: refused by the root's listener with one line each;
# every wait is bounded (HCCL_CONNECT_TIMEOUT=5 here).
add_test(NAME multihost_wrong_secret
         COMMAND bash ${MH_RUN} ${CMAKE_BINARY_DIR}/bin hcemu-run 2 2
                 $<TARGET_FILE:hcemu-example-allreduce> --bytes 64K)
set_tests_properties(multihost_wrong_secret PROPERTIES LABELS "e2e;multihost" TIMEOUT 120
                     PROCESSORS 2 ENVIRONMENT
                     "HCEMU_LOG_LEVEL=warn;HCCL_CONNECT_TIMEOUT=5;MH_EXPECT=refused")

# A dead remote host: host b of a 2+2 job over the network path is killed mid-allreduce; host
# a's waits on it fail with the network's report (HCCL_E_REMOTE, "peer rank failed") and host
# a exits by itself. Skipped (77) without UCX.
add_test(NAME multihost_net_dead_host
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/dead_host.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:all_reduce_test>)
set_tests_properties(multihost_net_dead_host PROPERTIES LABELS "e2e;multihost" TIMEOUT 150
                     SKIP_RETURN_CODE 77 PROCESSORS 2 ENVIRONMENT
                     "HCEMU_LOG_LEVEL=warn;HCCL_CONNECT_TIMEOUT=60;MH_HAVE_UCX=${MH_HAVE_UCX}")
