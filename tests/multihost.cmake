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

# Ranks of host b hold another key: the root's listener cannot prove theirs, so they send it
# nothing and fail with one line each; every wait is bounded (HCCL_CONNECT_TIMEOUT=5 here).
add_test(NAME multihost_wrong_key
         COMMAND bash ${MH_RUN} ${CMAKE_BINARY_DIR}/bin hcemu-run 2 2
                 $<TARGET_FILE:hcemu-example-allreduce> --bytes 64K)
set_tests_properties(multihost_wrong_key PROPERTIES LABELS "e2e;multihost" TIMEOUT 120
                     PROCESSORS 2 ENVIRONMENT
                     "HCEMU_LOG_LEVEL=warn;HCCL_CONNECT_TIMEOUT=5;MH_EXPECT=refused")

# A dead remote host: host b of a 2+2 job over the network path is killed mid-allreduce; host
# a's waits on it fail with the network's report (HCCL_E_REMOTE, "peer rank failed"), its
# synchronisation returns 507018 and host a exits by itself. One test per algorithm family:
# mesh, twoshot and hier wait on the dead host in per-peer threads (the main thread's join of
# a failed one fails with its error), ring and rhd on the main thread. Skipped (77) without UCX.
foreach(algo mesh twoshot hier ring rhd)
    add_test(NAME multihost_net_dead_host_${algo}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/dead_host.sh ${CMAKE_BINARY_DIR}/bin
                     $<TARGET_FILE:all_reduce_test>)
    set_tests_properties(multihost_net_dead_host_${algo} PROPERTIES LABELS "e2e;multihost"
                         TIMEOUT 150 SKIP_RETURN_CODE 77 PROCESSORS 2 ENVIRONMENT
                         "HCEMU_LOG_LEVEL=warn;HCCL_CONNECT_TIMEOUT=60;MH_HAVE_UCX=${MH_HAVE_UCX};HCEMU_ALGO=allreduce:${algo}")
endforeach()
# The same death injected: HCEMU_FAULT=host-down:host=<b> takes host b's executors down 1.5 s
# after their first transfer with host a (device/inject.c); host a sees the same report.
foreach(algo mesh ring)
    add_test(NAME multihost_net_host_down_${algo}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/dead_host.sh ${CMAKE_BINARY_DIR}/bin
                     $<TARGET_FILE:all_reduce_test>)
    set_tests_properties(multihost_net_host_down_${algo} PROPERTIES LABELS "e2e;multihost;fault"
                         TIMEOUT 150 SKIP_RETURN_CODE 77 PROCESSORS 2 ENVIRONMENT
                         "HCEMU_LOG_LEVEL=warn;HCCL_CONNECT_TIMEOUT=60;MH_HAVE_UCX=${MH_HAVE_UCX};HCEMU_ALGO=allreduce:${algo};DEAD_BY=fault")
endforeach()

# A host dies during the rendezvous: host b's ranks join and stall, host a's channel waits on
# them fail with HCCL_E_REMOTE as soon as the root's listener sees host b's connections close
# (not at HCCL_CONNECT_TIMEOUT). Shared-memory channels: no UCX needed.
add_test(NAME multihost_dead_rdv
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/dead_rdv.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:mh_probe>)
set_tests_properties(multihost_dead_rdv PROPERTIES LABELS "e2e;multihost" TIMEOUT 120
                     PROCESSORS 2 ENVIRONMENT "HCEMU_LOG_LEVEL=warn")

# A host dies while the communicator is made: host b's only rank (2 of 4; rank 3 never
# starts) has connected to the root's listener and waits in its join when host b is killed;
# host a's joins fail with HCCL_E_REMOTE and a line naming rank 2 and host-b at once, not at
# HCCL_CONNECT_TIMEOUT. No channels: no UCX needed.
add_test(NAME multihost_dead_join
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/dead_join.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:mh_probe>)
set_tests_properties(multihost_dead_join PROPERTIES LABELS "e2e;multihost" TIMEOUT 120
                     PROCESSORS 2 ENVIRONMENT "HCEMU_LOG_LEVEL=warn")

# mh_probe: checks the rank graph of a split job (and, with --collectives, the built-in
# collectives' bytes) from every rank.
add_executable(mh_probe ${CMAKE_CURRENT_SOURCE_DIR}/multihost/mh_probe.c)
target_include_directories(mh_probe PRIVATE ${CMAKE_SOURCE_DIR}/examples/common)
target_link_libraries(mh_probe PRIVATE hcemu)
set_target_properties(mh_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

# Two hosts by HCEMU_HOST on loopback: the rank graph puts them on two servers (4+4, 1+7; no
# data plane needed), and the hierarchical allreduce and allgather (4+4: two servers of four)
# give every byte right over the network path; by hcemu-run and by mpirun.
foreach(launcher hcemu-run mpirun)
    set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX};MH_HOSTS=host-a host-b")
    mh_test(multihost_graph_4_4_${launcher} PASS ${launcher} 4 4
            $<TARGET_FILE:mh_probe> --servers 4,4)
    mh_test(multihost_graph_1_7_${launcher} PASS ${launcher} 1 7
            $<TARGET_FILE:mh_probe> --servers 1,7)
    set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX};MH_NET=1")
    mh_test(multihost_net_hier_4_4_${launcher} PASS ${launcher} 4 4
            $<TARGET_FILE:mh_probe> --servers 4,4 --collectives 1000004)
endforeach()
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX}")

# A hang across hosts: the watchdog's report names the remote rank and its host.
add_test(NAME multihost_hang_names_remote_host
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/hang_remote.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:test_diag_host>)
set_tests_properties(multihost_hang_names_remote_host PROPERTIES LABELS "e2e;multihost"
                     TIMEOUT 120 PROCESSORS 2 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MH_ENV};MH_HAVE_UCX=${MH_HAVE_UCX}")

# Hang reports across hosts, both watchdogs on: a deadlock through rank 0 (host-a) and rank 1
# (host-b) is described and named the same way by both hosts' reports; a wait on a remote rank
# that computes (alive, not waiting) is reported without a cycle.
add_test(NAME multihost_net_hang_cycle
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/hang_cycle.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:test_diag_host>)
set_tests_properties(multihost_net_hang_cycle PROPERTIES LABELS "e2e;multihost"
                     TIMEOUT 150 PROCESSORS 2 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MH_ENV};MH_HAVE_UCX=${MH_HAVE_UCX}")

# The race detector across hosts: the vector clocks travel with the network messages. The
# diag kernels (1+1): no report when ordered, the remote rank and host named when not; the
# examples 4+4 with their correct orders: no report, no stop.
add_test(NAME multihost_net_race_remote
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/race_remote.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:test_diag_host>)
set_tests_properties(multihost_net_race_remote PROPERTIES LABELS "e2e;multihost"
                     TIMEOUT 200 PROCESSORS 2 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MH_ENV};MH_HAVE_UCX=${MH_HAVE_UCX}")
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX};MH_NET=1;HCEMU_RACECHECK=1")
foreach(ex p2p allreduce alltoall)
    mh_test(multihost_net_racecheck_${ex}_4_4_hcemu-run PASS hcemu-run 4 4
            $<TARGET_FILE:hcemu-example-${ex}> --bytes 256K --iters 2)
    set_tests_properties(multihost_net_racecheck_${ex}_4_4_hcemu-run PROPERTIES
                         FAIL_REGULAR_EXPRESSION "data race|race checker stopped")
endforeach()
mh_test(multihost_net_racecheck_all_reduce_test_4_4_hcemu-run success hcemu-run 4 4
        $<TARGET_FILE:all_reduce_test> -b 64 -e 1M -f 128 -c 1 -n 1 -w 1)
set_tests_properties(multihost_net_racecheck_all_reduce_test_4_4_hcemu-run PROPERTIES
                     FAIL_REGULAR_EXPRESSION "data race|race checker stopped")
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX}")

# The modelled clock across hosts: the held-out ring AllGather kernel at 8 ranks split 4+4
# over two hosts gives every rank the figure of the same job in one folder on two servers.
add_executable(mh_model_ag ${CMAKE_CURRENT_SOURCE_DIR}/multihost/mh_model_ag.c)
target_include_directories(mh_model_ag PRIVATE ${CMAKE_SOURCE_DIR}/examples/common
                           ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(mh_model_ag PRIVATE hcemu)
set_target_properties(mh_model_ag PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
add_dependencies(mh_model_ag model_kernels)
add_test(NAME multihost_net_model_time
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/model_split.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:mh_model_ag> ${CMAKE_BINARY_DIR}/kernels/model_kernels.json)
set_tests_properties(multihost_net_model_time PROPERTIES LABELS "e2e;multihost"
                     TIMEOUT 240 PROCESSORS 2 SKIP_RETURN_CODE 77
                     ENVIRONMENT "${MH_ENV};MH_HAVE_UCX=${MH_HAVE_UCX}")
# ... and where it cannot be right: two job folders of one host joined by shared memory
# carry no graph nodes, so modelled times are refused with one reason, never made up.
add_test(NAME multihost_model_time_refused_between_folders
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/model_shm_refused.sh
                 ${CMAKE_BINARY_DIR}/bin $<TARGET_FILE:mh_model_ag>
                 ${CMAKE_BINARY_DIR}/kernels/model_kernels.json)
set_tests_properties(multihost_model_time_refused_between_folders PROPERTIES
                     LABELS "e2e;multihost" TIMEOUT 240 PROCESSORS 2 ENVIRONMENT "${MH_ENV}")

# Two network namespaces joined by a veth pair, each with a private /dev/shm (root only:
# skipped otherwise, and when namespaces are unavailable): two hosts as far as the kernel is
# concerned, found as such without HCEMU_HOST. The rank graph needs only the rendezvous; the
# examples and tools need the network data plane (skipped by a build without UCX).
set(MH_NETNS ${CMAKE_CURRENT_SOURCE_DIR}/multihost/run_netns.sh)
function(mh_netns_test name expect launcher a b)
    add_test(NAME ${name}
             COMMAND bash ${MH_NETNS} ${CMAKE_BINARY_DIR}/bin ${launcher} ${a} ${b} ${ARGN})
    # no-asan: the same code paths run sanitized in the loopback tests above.
    set_tests_properties(${name} PROPERTIES LABELS "e2e;multihost;netns;no-asan" TIMEOUT 240
                         SKIP_RETURN_CODE 77 PROCESSORS 2 RESOURCE_LOCK netns
                         ENVIRONMENT "${MH_ENV};MH_EXPECT=${expect};${MH_EXTRA}")
endfunction()
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX}")
foreach(launcher hcemu-run mpirun)
    mh_netns_test(multihost_netns_graph_4_4_${launcher} PASS ${launcher} 4 4
                  $<TARGET_FILE:mh_probe> --servers 4,4)
endforeach()
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX};MH_NET=1")
# hcemu-run: every example and both tools, 4+4 and 1+7; mpirun: fewer (same data plane).
foreach(split "4;4" "1;7")
    list(GET split 0 a)
    list(GET split 1 b)
    foreach(ex p2p allgather allreduce alltoall broadcast reduce_scatter)
        mh_netns_test(multihost_netns_${ex}_${a}_${b}_hcemu-run PASS hcemu-run ${a} ${b}
                      $<TARGET_FILE:hcemu-example-${ex}> --bytes 1M)
    endforeach()
    foreach(tool all_reduce_test all_gather_test)
        mh_netns_test(multihost_netns_${tool}_${a}_${b}_hcemu-run success hcemu-run ${a} ${b}
                      $<TARGET_FILE:${tool}> -b 64 -e 1M -f 128 -c 1 -n 1 -w 1)
    endforeach()
endforeach()
foreach(ex allgather allreduce)
    mh_netns_test(multihost_netns_${ex}_4_4_mpirun PASS mpirun 4 4
                  $<TARGET_FILE:hcemu-example-${ex}> --bytes 1M)
endforeach()
foreach(tool all_reduce_test all_gather_test)
    mh_netns_test(multihost_netns_${tool}_4_4_mpirun success mpirun 4 4 $<TARGET_FILE:${tool}>
                  -b 64 -e 1M -f 128 -c 1 -n 1 -w 1)
endforeach()
mh_netns_test(multihost_netns_hier_4_4_hcemu-run PASS hcemu-run 4 4 $<TARGET_FILE:mh_probe>
              --servers 4,4 --collectives 1000004)
set(MH_EXTRA "MH_HAVE_UCX=${MH_HAVE_UCX}")

# The hierarchical collectives inside one job whose devices HCEMU_TOPOLOGY splits into
# servers (4+4 and 2+2+2), forced with HCEMU_ALGO: every byte of allreduce and allgather, at a
# count below the ranks per server, one not divisible by them, and one of several rounds.
foreach(shape "4_4;8;4,4" "2_2_2;6;2,2,2")
    list(GET shape 0 tag)
    list(GET shape 1 n)
    list(GET shape 2 servers)
    foreach(bytes 4 12 1000004)
        add_test(NAME multihost_topology_hier_${tag}_${bytes}
                 COMMAND ${CMAKE_BINARY_DIR}/bin/hcemu-run -n ${n} --timeout 200 --
                         $<TARGET_FILE:mh_probe> --servers ${servers} --collectives ${bytes})
        set_tests_properties(multihost_topology_hier_${tag}_${bytes} PROPERTIES
            LABELS "e2e;multihost" TIMEOUT 240 PROCESSORS 2 FAIL_REGULAR_EXPRESSION "FAIL"
            ENVIRONMENT "HCCL_BUFFSIZE=1;HCEMU_LOG_LEVEL=warn;HCEMU_ALGO=allreduce:hier,allgather:hier;HCEMU_TOPOLOGY=${CMAKE_CURRENT_SOURCE_DIR}/multihost/topo_${tag}.json")
    endforeach()
endforeach()

# The root's listener under attack (tests/multihost/attack.sh, rdv_attack.c): slow greetings,
# a flood of idle connections still open when the root's process exits, a replayed greeting
# and an oversized request; a 1+1 job must form and end beside each.
add_executable(rdv_attack ${CMAKE_CURRENT_SOURCE_DIR}/multihost/rdv_attack.c
                          ${CMAKE_SOURCE_DIR}/host/hccl/rdv/rdv_auth.c)
target_include_directories(rdv_attack PRIVATE ${CMAKE_SOURCE_DIR}/host/hccl ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(rdv_attack PRIVATE hcemu_common PkgConfig::NETTLE)
set_target_properties(rdv_attack PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
foreach(mode slow idle proofs)
    add_test(NAME multihost_attack_${mode}
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/attack.sh ${CMAKE_BINARY_DIR}/bin
                     $<TARGET_FILE:rdv_attack> $<TARGET_FILE:mh_probe> ${mode})
    set_tests_properties(multihost_attack_${mode} PROPERTIES LABELS "e2e;multihost" TIMEOUT 150
                         PROCESSORS 2 ENVIRONMENT "HCEMU_LOG_LEVEL=warn")
endforeach()

# Communicators made and destroyed in a loop by a 1+1 split: the root's listener forgets each
# (before, the 65th failed). bench/comm_loop.sh runs 1,000 and reports the memory.
add_executable(mh_comm_loop ${CMAKE_CURRENT_SOURCE_DIR}/multihost/mh_comm_loop.c)
target_include_directories(mh_comm_loop PRIVATE ${CMAKE_SOURCE_DIR}/examples/common)
target_link_libraries(mh_comm_loop PRIVATE hcemu)
set_target_properties(mh_comm_loop PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
mh_test(multihost_comm_loop_1_1 PASS hcemu-run 1 1 $<TARGET_FILE:mh_comm_loop> --iters 100)

# The job's key: never on a command line, files checked, no predictable default.
add_test(NAME multihost_keys
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/keys.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:mh_probe>)
set_tests_properties(multihost_keys PROPERTIES LABELS "e2e;multihost" TIMEOUT 120 PROCESSORS 2)

# The executors' UCX listeners are bound to the job's interface (loopback here), not to every
# interface of the machine. Skipped (77) without UCX.
add_test(NAME multihost_net_ucx_bind
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/multihost/ucx_bind.sh ${CMAKE_BINARY_DIR}/bin
                 $<TARGET_FILE:all_reduce_test>)
set_tests_properties(multihost_net_ucx_bind PROPERTIES LABELS "e2e;multihost" TIMEOUT 120
                     SKIP_RETURN_CODE 77 PROCESSORS 2 ENVIRONMENT
                     "HCEMU_LOG_LEVEL=warn;MH_HAVE_UCX=${MH_HAVE_UCX}")
