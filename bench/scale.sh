#!/bin/sh
# scale.sh - the 256-rank checks of `make scale` (too slow for `make test`): an HcclAllGather
# of 4 KiB per rank (all_gather_test, the hccl_test-compatible tool) as threads of one process
# and as processes under hcemu-run, with the default
# HCCL_BUFFSIZE, each under scale_mem.sh (peak memory), then bench_startup at 8, 64 and 256
# ranks. Fails when a run fails or leaves a job folder or an executor behind.
# Usage: bench/scale.sh [BUILD_DIR] [RANKS]   (defaults: build, 256)
build=${1:-build}
n=${2:-256}
here=$(dirname "$0")
bin=$build/bin
# Joining 256 ranks on two cores takes minutes; the default 120 s connect timeout is short.
export HCCL_CONNECT_TIMEOUT=${HCCL_CONNECT_TIMEOUT:-900}
export HCEMU_LOG_LEVEL=${HCEMU_LOG_LEVEL:-warn}
status=0
# A private parent folder for the job folders: what is left in it afterwards is ours.
jobs=$(mktemp -d /dev/shm/hcemu-scale-XXXXXX)
export HCEMU_JOB_DIR=$jobs

run() {
    label=$1
    shift
    log=$(mktemp)
    "$here/scale_mem.sh" "$label" sh -c '"$@" >"$0" 2>&1' "$log" "$@" || {
        status=1
        grep -v ' ok: ' "$log" | head -20
    }
    tail -1 "$log"
    rm -f "$log"
}

ag="$bin/all_gather_test -b 4K -e 4K -n 1 -w 0"
run "allgather $n threads" $ag -t "$n"
run "allgather $n processes" "$bin/hcemu-run" -n "$n" $ag
for r in 8 64 "$n"; do
    "$bin/bench_startup" "$r" || status=1
done
sleep 2
left=$(ls -A "$jobs")
if [ -n "$left" ]; then
    echo "scale: job folders left in $jobs: $left"
    status=1
fi
# Executors name their job folder on the command line.
if pgrep -f "hcemu-device.*$jobs" >/dev/null; then
    echo "scale: executors of these jobs remain: $(pgrep -f "hcemu-device.*$jobs" | tr '\n' ' ')"
    status=1
fi
rmdir "$jobs" 2>/dev/null
[ "$status" -eq 0 ] && echo "scale: PASS" || echo "scale: FAIL"
exit "$status"
