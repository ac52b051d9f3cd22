#!/bin/sh
# choice.sh - the built-in collectives' default algorithm on the wall clock against the card's
# rule (HCEMU_MACHINE=card, the choice before the cost model) and OpenMPI, at the rows the
# choice changes most. Each round runs the three command after command, so a load that comes
# and goes weighs on all three alike; read the ratios.
# Usage: bench/choice.sh [build-dir]   (ROUNDS=3, ITERS=200, WARMUP=20, ROWS="tool:ranks:size ...")
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
ITERS=${ITERS:-200}
WARMUP=${WARMUP:-20}
ROWS=${ROWS:-"all_reduce_test:2:1M all_reduce_test:2:256K all_reduce_test:8:256K all_reduce_test:4:256K
all_reduce_test:8:1K all_gather_test:8:1K all_gather_test:8:64K all_reduce_test:8:1M"}
TMP=$(mktemp -d /tmp/hcemu-choice-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/mpi_lib.sh"
mpi=""
if mpi_build "$TMP/mpi_coll" /dev/null; then
    mpi=yes
fi

# hccl_test's average time of one size, in us.
hcemu() { # machine-setting tool ranks size
    (HCEMU_MACHINE=$1 && export HCEMU_MACHINE && hcemu_time "$3" "$2" "$4" "$ITERS" "$WARMUP")
}
mpi_us() { # tool ranks size
    [ -n "$mpi" ] || { echo -; return; }
    b=$(bytes_of "$3")
    op=allreduce
    [ "$1" = all_reduce_test ] || op=allgather
    mpi_run 120 "$2" "$TMP/mpi_coll" "$b" "$ITERS" "$WARMUP" 2>/dev/null | awk -v o=$op -v b="$b" '$1 == o && $2 == b { print $3 }'
}
mine=$("$BIN/hcemu-run" --machine | head -1 | sed 's/^HCEMU_MACHINE=//')
echo "machine figures: $mine; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %5s %6s %5s %10s %10s %10s %9s %9s %s\n' tool ranks size round card_us model_us \
    mpi_us model/card model/mpi algorithm
for row in $ROWS; do
    tool=${row%%:*} rest=${row#*:}
    n=${rest%%:*} size=${rest#*:}
    algo=$(HCEMU_MACHINE=$mine HCEMU_LOG_LEVEL=debug "$BIN/hcemu-run" -n "$n" "$BIN/$tool" -b "$size" \
        -e "$size" -n 1 -w 0 -c 0 2>&1 | sed -n 's/.*bytes: \([a-z]*\) (.*/\1/p' | head -1)
    for r in $(seq "$ROUNDS"); do
        c=$(hcemu card "$tool" "$n" "$size")
        m=$(hcemu "$mine" "$tool" "$n" "$size")
        o=$(mpi_us "$tool" "$n" "$size")
        awk -v t="$tool" -v n="$n" -v s="$size" -v r="$r" -v c="${c:-0}" -v m="${m:-0}" -v o="${o:--}" \
            -v a="${algo:-?}" 'BEGIN {
            printf("%-16s %5s %6s %5s %10.1f %10.1f %10s %9.2f %9s %s\n", t, n, s, r, c, m, o,
                   c > 0 ? m / c : 0, o != "-" && o > 0 ? sprintf("%.2f", m / o) : "-", a) }'
    done
done
