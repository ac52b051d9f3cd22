# The built-in collectives (host/coll/, collectives/): every operator,
# data type and reduce op at 1, 2, 3, 5 and 8 rank threads, bad arguments; then the
# algorithm-sensitive operators once per HCEMU_ALGO setting; the same at 1, 2, 3, 5 and 8
# rank processes (test_collectives under hcemu-run: each rank exits non-zero on a failed check
# and hcemu-run passes the first failure on); the hccl_test tools
# (tools/hccl_test/hccl_test.cmake) as processes and as threads.
emu_add_test(collectives SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_collectives.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 300 ENV "HCEMU_LOG_LEVEL=warn;TEST_COLL_REPLAYS=on")
# Launches that repeat queue their first expansion's tasks again (HCEMU_REPLAY, on by
# default): the same bytes and codes with every launch expanded, and no replay.
add_test(NAME collectives_noreplay COMMAND test_collectives)
set_tests_properties(collectives_noreplay PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_REPLAY=0;TEST_COLL_REPLAYS=off;HCEMU_LOG_LEVEL=warn")
foreach(algo mesh ring rhd rd twoshot)
    add_test(NAME collectives_${algo} COMMAND test_collectives)
    set_tests_properties(collectives_${algo} PROPERTIES TIMEOUT 300 ENVIRONMENT
        "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_ALGO=allreduce:${algo},allgather:${algo},broadcast:${algo},reducescatter:${algo}")
endforeach()
# Ranks as processes: test_collectives itself under hcemu-run (one rank per process, the
# same checks as the threads), at every rank count and once per algorithm at 8 ranks.
foreach(n 1 2 3 5 8)
    add_test(NAME collectives_procs_n${n} COMMAND $<TARGET_FILE:hcemu-run> -n ${n} --
             $<TARGET_FILE:test_collectives>)
    set_tests_properties(collectives_procs_n${n} PROPERTIES TIMEOUT 300
        ENVIRONMENT "HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn")
endforeach()
foreach(algo mesh ring rhd rd twoshot)
    add_test(NAME collectives_procs_${algo} COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
             $<TARGET_FILE:test_collectives>)
    set_tests_properties(collectives_procs_${algo} PROPERTIES TIMEOUT 300 ENVIRONMENT
        "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn;HCEMU_ALGO=allreduce:${algo},allgather:${algo},broadcast:${algo},reducescatter:${algo}")
endforeach()
# The job-wide run queue off (HCEMU_RUNQ=0, docs/ARCHITECTURE.md): every task stays on its
# device; the same bytes and codes as threads (1-8 ranks) and as 8 rank processes.
add_test(NAME collectives_norunq COMMAND test_collectives)
set_tests_properties(collectives_norunq PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_RUNQ=0;HCEMU_LOG_LEVEL=warn")
add_test(NAME collectives_procs_norunq COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_norunq PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_RUNQ=0;HCEMU_LOG_LEVEL=warn")
# One call at a time (HCEMU_OVERLAP=0; by default queued calls of a communicator overlap,
# docs/COLLECTIVES.md): the same bytes and codes as threads (1-8 ranks) and as 8 processes.
add_test(NAME collectives_nooverlap COMMAND test_collectives)
set_tests_properties(collectives_nooverlap PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_OVERLAP=0;HCEMU_LOG_LEVEL=warn")
add_test(NAME collectives_procs_nooverlap COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_nooverlap PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_OVERLAP=0;HCEMU_LOG_LEVEL=warn")
# Yielding polls off (HCEMU_POLL_US=0; the default polls 300 us, docs/ARCHITECTURE.md):
# waiting threads sleep at once; the same bytes and codes as threads (1-8 ranks) and as 8
# rank processes.
add_test(NAME collectives_nopoll COMMAND test_collectives)
set_tests_properties(collectives_nopoll PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_POLL_US=0;HCEMU_LOG_LEVEL=warn")
add_test(NAME collectives_procs_nopoll COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_nopoll PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_POLL_US=0;HCEMU_LOG_LEVEL=warn")
# Small mesh exchanges on a thread per peer (HCEMU_PEER_THREADS=on), the card's form, which
# the default runs only when the time is modelled: the same bytes and codes as threads (1-8
# ranks) and as 8 rank processes.
add_test(NAME collectives_peer_threads COMMAND test_collectives)
set_tests_properties(collectives_peer_threads PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_PEER_THREADS=on;HCEMU_LOG_LEVEL=warn")
add_test(NAME collectives_procs_peer_threads COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_peer_threads PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_PEER_THREADS=on;HCEMU_LOG_LEVEL=warn")
# Streaming transfers from 64 KiB instead of 1 MiB (HCEMU_COPY_STREAM_KB, common/platform/copy.h):
# every exchange of the sizes these tests use then moves its bytes with non-temporal stores,
# which the notify after them must not overtake; the same bytes as the default run.
add_test(NAME collectives_stream COMMAND test_collectives)
set_tests_properties(collectives_stream PROPERTIES TIMEOUT 300 ENVIRONMENT
    "HCEMU_HANG_MS=30000;HCEMU_COPY_STREAM_KB=64;HCEMU_LOG_LEVEL=warn")
# The hccl_test tools under hcemu-run, checking every row.
foreach(tool all_reduce_test reduce_scatter_test alltoallv_test send_recv_test)
    add_test(NAME collectives_procs_${tool} COMMAND $<TARGET_FILE:hcemu-run> -n 3 --
             $<TARGET_FILE:${tool}> -b 1K -e 2M -f 32 -n 2 -w 1 -d int32 -o max -c 1)
    set_tests_properties(collectives_procs_${tool} PROPERTIES TIMEOUT 300
        ENVIRONMENT "HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000" FAIL_REGULAR_EXPRESSION "failed"
        PASS_REGULAR_EXPRESSION "success")
endforeach()
add_test(NAME collectives_procs_prod COMMAND $<TARGET_FILE:hcemu-run> -n 5 --
         $<TARGET_FILE:reduce_test> -b 64 -e 64K -f 16 -n 2 -w 1 -d fp16 -o prod -r 4 -c 1)
set_tests_properties(collectives_procs_prod PROPERTIES TIMEOUT 300
    ENVIRONMENT "HCEMU_HANG_MS=30000" FAIL_REGULAR_EXPRESSION "failed" PASS_REGULAR_EXPRESSION "success")
# Two ranks from 16 MiB: the default allreduce is two-shot (coll_plan.c); checked bytes, with
# an 8 MB HCCL buffer so both of its halves move in several rounds.
add_test(NAME collectives_two_rank_twoshot COMMAND $<TARGET_FILE:all_reduce_test> -t 2 -b 16M
         -e 32M -f 2 -n 1 -w 0 -c 1)
set_tests_properties(collectives_two_rank_twoshot PROPERTIES TIMEOUT 300
    ENVIRONMENT "HCCL_BUFFSIZE=8;HCEMU_HANG_MS=30000" FAIL_REGULAR_EXPRESSION "failed"
    PASS_REGULAR_EXPRESSION "success")
# The two-shot allreduce in one launch, each rank writing its reduced block into every output
# (coll_abi.h, spread), with a cache figure of 1 MiB: past it each round is one reduce-spread
# task (hcemu_reduce_spread_published), whose stores stream. Every operator's bytes, in place
# too, at 1-8 ranks as threads and 8 as processes.
add_test(NAME collectives_twoshot_streamed COMMAND test_collectives)
add_test(NAME collectives_procs_twoshot_streamed COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_twoshot_streamed collectives_procs_twoshot_streamed PROPERTIES
    TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn;HCEMU_ALGO=allreduce:twoshot;HCEMU_MACHINE=copy=30,handoff=1,cores=2,cache=1")
# The spread form takes the place of the allgather launch: at 2 ranks the trace shows each
# reduced round written into the peer's output and no block read back from it, and the bytes
# are right (1 MiB, as processes).
add_test(NAME collectives_twoshot_spread_traced COMMAND sh -c [=[
t=$(mktemp "${TMPDIR:-/tmp}/hcemu-spread-XXXXXX") || exit 1
HCEMU_TRACE=$t "$0" -n 2 -- "$1" -b 1M -e 1M -n 3 -w 0 -c 1 | grep -q success; ok=$?
w=$(grep -c '"channel write to a published buffer"' "$t")
r=$(grep -c '"channel read of a published buffer"' "$t"); rm -f "$t"
echo "bytes checked: $ok, writes into outputs $w, reads back $r"
[ "$ok" = 0 ] && [ "$w" -gt 0 ] && [ "$r" = 0 ]]=] $<TARGET_FILE:hcemu-run>
    $<TARGET_FILE:all_reduce_test>)
set_tests_properties(collectives_twoshot_spread_traced PROPERTIES TIMEOUT 120
    ENVIRONMENT "HCEMU_ALGO=allreduce:twoshot;HCEMU_HANG_MS=30000")

# Recursive doubling's pushed steps (coll_steps.h, hcoll_pushed): 8 rank processes, blocks of
# 2 KiB-512 KiB written straight into the partners' outputs, in loops of overlapping calls
# whose outboxes take turns; then 2 MiB blocks, past the pushed sizes. At 4 ranks up to the
# largest pushed block, 512 KiB; steps from 256 KiB stay with their device, shorter ones go
# through the job-wide run queue (runq.c, RUNQ_MOVE_MAX). collectives_procs_rhd pushes in place.
add_test(NAME collectives_procs_pushed COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:all_gather_test> -b 16K -e 16M -f 4 -n 20 -w 2 -c 1)
add_test(NAME collectives_procs_pushed_4 COMMAND $<TARGET_FILE:hcemu-run> -n 4 --
         $<TARGET_FILE:all_gather_test> -b 8K -e 2M -f 4 -n 20 -w 2 -c 1)
set_tests_properties(collectives_procs_pushed collectives_procs_pushed_4 PROPERTIES TIMEOUT 300
    ENVIRONMENT "HCEMU_ALGO=allgather:rhd;HCEMU_DIRECT_KB=2;HCEMU_HANG_MS=30000"
    FAIL_REGULAR_EXPRESSION "failed" PASS_REGULAR_EXPRESSION "success")
# Direct reads of megabytes (coll_kernel.c, direct_read), one task a peer, past the run
# queue's moves: mesh allgathers of 4 processes with blocks of 2.5 and 7.5 MiB, and a 5 MiB
# broadcast whose every rank reads the root's buffer; checked bytes.
add_test(NAME collectives_procs_big_reads COMMAND $<TARGET_FILE:hcemu-run> -n 4 --
         $<TARGET_FILE:all_gather_test> -b 10M -e 30M -f 3 -n 3 -w 1 -c 1)
add_test(NAME collectives_procs_big_reads_bcast COMMAND $<TARGET_FILE:hcemu-run> -n 4 --
         $<TARGET_FILE:broadcast_test> -b 5M -e 5M -n 3 -w 1 -c 1)
set_tests_properties(collectives_procs_big_reads collectives_procs_big_reads_bcast
    PROPERTIES TIMEOUT 300 ENVIRONMENT "HCEMU_ALGO=allgather:mesh;HCEMU_HANG_MS=30000"
    FAIL_REGULAR_EXPRESSION "failed" PASS_REGULAR_EXPRESSION "success")
# Pushed allgather steps and the two-shot allreduce's direct pairs on one communicator, calls of
# each repeating between the other's, which store into the same outboxes.
add_test(NAME collectives_procs_pushed_mix COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_pushed_mix PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn;HCEMU_ALGO=allgather:rhd,allreduce:twoshot")
# The same with ranks 4-7 on a second "host": the steps between the hosts go through the
# slots, those within a host are pushed, decided alike at both ends of each.
if(UCX_FOUND)
    add_test(NAME collectives_net_pushed COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
             $<TARGET_FILE:all_gather_test> -b 16K -e 1M -f 4 -n 20 -w 2 -c 1)
    set_tests_properties(collectives_net_pushed PROPERTIES TIMEOUT 300 LABELS "multihost"
        ENVIRONMENT "HCEMU_HOST_SPLIT=4;HCEMU_ALGO=allgather:rhd;HCEMU_DIRECT_KB=2;HCEMU_HANG_MS=30000"
        FAIL_REGULAR_EXPRESSION "failed" PASS_REGULAR_EXPRESSION "success")
endif()
foreach(tool all_gather_test broadcast_test alltoall_test scatter_test)
    add_test(NAME collectives_threads_${tool} COMMAND $<TARGET_FILE:${tool}> -t 5 -b 8 -e 1M
             -f 64 -n 2 -w 1 -d uint8 -r 2 -c 1 -B 1)
    set_tests_properties(collectives_threads_${tool} PROPERTIES TIMEOUT 300
        ENVIRONMENT "HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000" FAIL_REGULAR_EXPRESSION "failed"
        PASS_REGULAR_EXPRESSION "success")
endforeach()
# The built-in collectives with devices 2 and above on a second "host" (HCEMU_HOST_SPLIT):
# every operator's bytes through the network (UCX) path between the two.
if(UCX_FOUND)
    add_test(NAME collectives_net COMMAND test_collectives)
    set_tests_properties(collectives_net PROPERTIES TIMEOUT 300 LABELS "multihost"
        ENVIRONMENT "TEST_COLL_QUICK=1;HCEMU_HOST_SPLIT=2;HCEMU_LOG_LEVEL=warn")
endif()
# Under the race detector (HCEMU_RACECHECK=1) the collectives report nothing: as threads
# (communicators of 1-8 ranks one after another, whose HCCL buffers reuse addresses) and as 8
# rank processes.
add_test(NAME collectives_racecheck COMMAND test_collectives)
set_tests_properties(collectives_racecheck PROPERTIES TIMEOUT 300
    ENVIRONMENT "HCEMU_RACECHECK=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn;TEST_COLL_REPLAYS=off"
    FAIL_REGULAR_EXPRESSION "data race|race checker stopped")
add_test(NAME collectives_procs_racecheck COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_racecheck PROPERTIES TIMEOUT 300
    ENVIRONMENT "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_RACECHECK=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn"
    FAIL_REGULAR_EXPRESSION "data race|race checker stopped")
# Direct reads (HCEMU_DIRECT_KB, host/coll/coll_direct.c): from 1 KiB a pair instead of 64, so
# the sizes these tests use read peers' buffers directly, mixed with eager pairs in one launch;
# and never (0), so the eager and staged forms keep their bytes checked on the wall clock too.
add_test(NAME collectives_direct COMMAND test_collectives)
set_tests_properties(collectives_direct PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_DIRECT_KB=1;HCEMU_LOG_LEVEL=warn")
add_test(NAME collectives_procs_direct COMMAND $<TARGET_FILE:hcemu-run> -n 8 --
         $<TARGET_FILE:test_collectives>)
set_tests_properties(collectives_procs_direct PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_DIRECT_KB=1;HCEMU_LOG_LEVEL=warn")
add_test(NAME collectives_nodirect COMMAND test_collectives)
set_tests_properties(collectives_nodirect PROPERTIES TIMEOUT 300 ENVIRONMENT
    "TEST_COLL_QUICK=1;HCEMU_HANG_MS=30000;HCEMU_DIRECT_KB=0;HCEMU_LOG_LEVEL=warn")
