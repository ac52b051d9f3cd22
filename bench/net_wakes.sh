#!/bin/sh
# net_wakes.sh - what one notify hand-off between two hosts costs in wake-ups and CPU, a
# figure that depends on the machine's load less than bench/net.sh's times do.
#
# Runs bench_net (bench/bench_net.c: devices 0 and 1 of one process on two "hosts", the
# channel through UCX) twice, with R and 3R rounds of its channel-notify ping-pong, under
# `perf stat` over the whole job (executors and their threads: perf counts inherited by every
# child), and prints the difference divided by the extra hand-offs (one way each):
#   cs            context switches
#   cpu_us        CPU time of every thread of the job
#   futex_wake    futex(FUTEX_WAKE) on shared words (doorbells: a hand-off rung to a
#                 sleeping worker instead of run by the progress thread)
#   futex_wait    futex(FUTEX_WAIT) on shared words (a worker going to sleep)
#   epoll_wait    the network progress threads going to sleep (or looking)
#   sendmsg       UCX's TCP sends: messages on the wire (a record is one since it is no
#                 longer answered; two before)
# Run it with HCEMU_RUNQ=0 to see the hand-offs rung to a worker instead of run by the
# progress thread. Needs `perf` with the syscall tracepoints; skips with a message otherwise.
# Usage: bench/net_wakes.sh [build-dir]   (R: rounds, default 1000)
set -eu
BUILD=${1:-build}
R=${R:-1000}
export UCX_TLS=${UCX_TLS:-tcp} UCX_TCP_TX_SEG_SIZE=${UCX_TCP_TX_SEG_SIZE:-512k}
export UCX_TCP_RX_SEG_SIZE=${UCX_TCP_RX_SEG_SIZE:-512k} UCX_WARN_UNUSED_ENV_VARS=n

if ! command -v perf >/dev/null 2>&1 ||
    ! perf stat -e syscalls:sys_enter_futex true >/dev/null 2>&1; then
    echo "net_wakes.sh: perf with syscall tracepoints not available: skipped"
    exit 0
fi
if [ ! -x "$BUILD/bin/bench_net" ] || [ ! -e "$BUILD/lib/libhcemu_net_ucx.so" ]; then
    echo "net_wakes.sh: $BUILD/bin/bench_net not built, or hcemu-device without UCX: skipped"
    exit 0
fi

# Counters of one run with $1 ping-pong rounds: cs, cpu ms, futex wake, futex wait, epoll,
# sendmsg.
count() {
    perf stat -x, -e context-switches,task-clock \
        -e syscalls:sys_enter_futex --filter 'op == 1' \
        -e syscalls:sys_enter_futex --filter 'op == 0' \
        -e syscalls:sys_enter_epoll_wait -e syscalls:sys_enter_sendmsg \
        "$BUILD/bin/bench_net" --sizes 4K --iters 1 --rounds "$1" 2>&1 >/dev/null |
        grep -E '^[0-9.]+,' | cut -d, -f1 | tr '\n' ' '
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
a=$(count "$R")
b=$(count $((3 * R)))
# bench_net runs n and 2n+1 rounds per figure: 3n+1 in all; a round is two hand-offs.
echo "$a $b" | awk -v r="$R" '{
    h = 2 * 6 * r
    printf "per hand-off: cs %.2f cpu_us %.1f futex_wake %.2f futex_wait %.2f epoll_wait %.2f " \
        "sendmsg %.2f\n", ($7 - $1) / h, ($8 - $2) * 1000 / h, ($9 - $3) / h, ($10 - $4) / h,
        ($11 - $5) / h, ($12 - $6) / h }'
