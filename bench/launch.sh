#!/bin/sh
# launch.sh - kernel launch -> first task, measured inside the executors: from the moment a
# worker takes a kernel-launch task off its host stream to the start of the first task any
# thread of that device runs after it (the kernel's first data-plane task), for every launch
# of a 2-rank 1 KiB allreduce run (hccl_test's timed loop, its warm-up and barriers).
#
# Both timestamps are the executor's CLOCK_MONOTONIC, taken by the scheduler and written by
# the timeline (HCEMU_TRACE); the script pairs each launch slice with the next task slice of
# its device on another track. Prints p10 / median / p90 over all launches and the median's
# ratio to the 10 us target. The timeline's hooks keep every task on its own device (no
# job-wide run queue), which does not touch this interval: the kernel's first task is a task
# of its own main thread, run by its own device either way. The hooks do add their cost to
# the kernel's submissions, so the figure is an upper bound.
# Usage: bench/launch.sh [build-dir]   (N: timed calls, default 300; MODE: t = rank threads,
# p = rank processes under hcemu-run, default t)
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
N=${N:-300}
MODE=${MODE:-t}
TRACE=$(mktemp /tmp/hcemu-launch-XXXXXX)
trap 'rm -f "$TRACE"' EXIT

if [ "$MODE" = p ]; then
    HCEMU_TRACE=$TRACE "$BIN/hcemu-run" -n 2 "$BIN/all_reduce_test" -b 1K -e 1K -n "$N" -w 20 \
        >/dev/null
else
    HCEMU_TRACE=$TRACE "$BIN/all_reduce_test" -t 2 -b 1K -e 1K -n "$N" -w 20 >/dev/null
fi

# One line per task slice: device, track, start (us), 1 if a kernel launch; sorted by device
# then start, so each launch is followed by the tasks its device started after it.
grep '"ph":"X"' "$TRACE" |
    sed -n 's/.*"name":"\([^"]*\)".*"pid":\([0-9]*\),"tid":\([0-9]*\),"ts":\([0-9.]*\).*/\2 \3 \4 \1/p' |
    awk '{ print $1, $2, $3, ($4 == "kernel" && $5 == "launch") ? 1 : 0 }' |
    sort -k1,1n -k3,3n |
    awk '
        $4 == 1 { at[$1] = $3; host[$1] = $2; next }
        ($1 in at) && $2 != host[$1] { printf "%.3f\n", $3 - at[$1]; delete at[$1] }' |
    sort -n |
    awk -v n="$N" '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "launch.sh: no launch found in the timeline"; exit 1 }
            p10 = v[int(NR * 0.1) + 1]; med = v[int(NR * 0.5) + 1]; p90 = v[int(NR * 0.9) + 1]
            printf "kernel launch -> first task, %d launches: p10 %.1f us, median %.1f us, p90 %.1f us; median / 10 us target: %.2f\n",
                NR, p10, med, p90, med / 10
        }'
