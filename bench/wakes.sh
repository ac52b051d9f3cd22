#!/bin/sh
# wakes.sh - what one collective call costs in wake-ups, a figure that does not depend on the
# machine's load: futex wake and wait calls, context switches and CPU time per call, for the
# whole job (host, executors and their threads: perf counts inherited by every child).
#
# Each case runs twice, with N and 2N timed calls (the same warm-up), and prints the difference
# divided by N, so start-up, communicator set-up and tear-down cancel out. A call's hand-offs
# that found a thread awake (spinning) cost no futex call; each one that did not costs a wake
# by the ringer and a wait by the thread that slept.
#   wake/call    futex(FUTEX_WAKE) on shared words (doorbells, stream completion, notifies)
#   wait/call    futex(FUTEX_WAIT) on shared words (a thread going to sleep)
#   priv/call    futex calls on process-private words (mutexes, condition variables)
#   cs/call      context switches (voluntary and involuntary)
#   cpu_us/call  CPU time of every thread of the job
# Needs `perf` with access to the syscall tracepoints (root, or perf_event_paranoid <= 1);
# skips with a message otherwise.
# Usage: bench/wakes.sh [build-dir]   (N: calls per run, default 200; CASES: "2t 2p 8p 8t ag8p",
# or ar:RANKS:SIZE / ag:RANKS:SIZE for an allreduce / allgather of SIZE (1M, 256K...) as processes;
# with HCEMU_ALGO set, CPU per call compares algorithms under a load that moves wall-clock times)
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
N=${N:-200}
CASES=${CASES:-"2t 2p 8p ag8p"}

if ! command -v perf >/dev/null 2>&1 ||
    ! perf stat -e syscalls:sys_enter_futex true >/dev/null 2>&1; then
    echo "wakes.sh: perf with syscall tracepoints not available: skipped"
    exit 0
fi

# Counters of one run of "$@" -n calls: cs, cpu ms, shared wait, shared wake, private calls.
count() {
    calls=$1
    shift
    perf stat -x, -e context-switches,task-clock \
        -e syscalls:sys_enter_futex --filter 'op == 0' \
        -e syscalls:sys_enter_futex --filter 'op == 1' \
        -e syscalls:sys_enter_futex --filter 'op == 128' \
        -e syscalls:sys_enter_futex --filter 'op == 129' \
        -e syscalls:sys_enter_futex --filter 'op == 137' \
        "$@" -n "$calls" 2>&1 >/dev/null | grep -E '^[0-9.]+,' | cut -d, -f1 | tr '\n' ' '
}

row() {
    name=$1
    shift
    a=$(count "$N" "$@")
    b=$(count $((2 * N)) "$@")
    # shellcheck disable=SC2086
    set -- $a $b
    if [ $# -ne 14 ]; then
        echo "$name: a run failed (perf printed: $a / $b)"
        return
    fi
    awk -v n="$N" -v name="$name" -v a="$a" -v b="$b" 'BEGIN {
        split(a, x, " "); split(b, y, " ");
        printf "%-34s %9.1f %9.1f %9.1f %9.1f %9.1f\n", name, (y[4]-x[4])/n, (y[3]-x[3])/n,
            (y[5]+y[6]+y[7]-x[5]-x[6]-x[7])/n, (y[1]-x[1])/n, (y[2]-x[2])*1000/n }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $N and $((2 * N)) calls per case"
printf "%-34s %9s %9s %9s %9s %9s\n" case wake/call wait/call priv/call cs/call cpu_us/call
for c in $CASES; do
    case $c in
    2t) row "allreduce 1 KiB, 2 rank threads" "$BIN/all_reduce_test" -t 2 -b 1K -e 1K -w 20 ;;
    2p) row "allreduce 1 KiB, 2 rank processes" "$BIN/hcemu-run" -n 2 "$BIN/all_reduce_test" -b 1K -e 1K -w 20 ;;
    8t) row "allreduce 1 KiB, 8 rank threads" "$BIN/all_reduce_test" -t 8 -b 1K -e 1K -w 5 ;;
    8p) row "allreduce 1 KiB, 8 rank processes" "$BIN/hcemu-run" -n 8 "$BIN/all_reduce_test" -b 1K -e 1K -w 5 ;;
    ag8p) row "allgather 1 KiB, 8 rank processes" "$BIN/hcemu-run" -n 8 "$BIN/all_gather_test" -b 1K -e 1K -w 5 ;;
    ar:*:* | ag:*:*)
        r=${c#*:} t=all_reduce_test
        [ "${c%%:*}" = ar ] || t=all_gather_test
        row "${c%%:*} ${r#*:}, ${r%%:*} rank processes" "$BIN/hcemu-run" -n "${r%%:*}" "$BIN/$t" \
            -b "${r#*:}" -e "${r#*:}" -w 5 -c 0 ;;
    *) echo "unknown case $c" ;;
    esac
done
