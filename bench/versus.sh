#!/bin/sh
# versus.sh - hcemu against OpenMPI at chosen rows, each row a job of its own, run ROUNDS times
# command after command (hcemu, then OpenMPI), so a load that comes and goes weighs on both;
# prints every run and the ratio of the medians. This is the measure of the "three runs each"
# targets: a single sweep of bench/collectives.sh puts the first size of a job behind its
# start-up, and single runs of small calls on a 2-core machine spread 2x or more.
# Each row runs enough calls for about TARGET_MS of work (at least 50, at most 5000), after
# warm-up calls for about WARM_MS (mpi_lib.sh, row_calls).
# Usage: bench/versus.sh [build-dir]   (ROWS="ar:RANKS:SIZE ag:RANKS:SIZE ...", ROUNDS=3,
# TARGET_MS=60, WARM_MS=300; SIZE as 1K, 256K, 4M)
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
TARGET_MS=${TARGET_MS:-60}
WARM_MS=${WARM_MS:-300}
ROWS=${ROWS:-"ar:8:1K ag:8:1K ar:4:1K ag:4:1K ag:2:64K ag:2:256K ar:4:128K ag:4:128K ar:8:128K \
ag:8:128K ar:8:256K ag:8:256K ar:2:1M ag:2:4M ar:2:4M ag:2:16M"}
TMP=$(mktemp -d /tmp/hcemu-versus-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/mpi_lib.sh"
if ! mpi_build "$TMP/mpi_coll" /dev/null; then
    echo "versus.sh: OpenMPI (mpicc, mpirun) not installed: skipped (make bench-deps installs it)"
    exit 0
fi

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds"
printf '%-4s %5s %6s %6s %10s %10s %7s  %s\n' op ranks size calls hcemu_us mpi_us ratio \
    "(medians; then every run)"
for row in $ROWS; do
    row_parse "$row" || { echo "versus.sh: unknown op in $row (ar or ag)" >&2; exit 2; }
    set -- $(row_calls "$row_bytes" "$TARGET_MS" "$WARM_MS")
    calls=$1 warm=$2 b=$row_bytes
    : >"$TMP/h" && : >"$TMP/m"
    for r in $(seq "$ROUNDS"); do
        hcemu_time "$row_n" "$row_tool" "$b" "$calls" "$warm" >>"$TMP/h"
        mpi_time "$TMP/mpi_coll" "$row_n" "$row_mop" "$b" "$calls" "$warm" >>"$TMP/m"
    done
    row_print "$row_op" "$row_n" "$row_size" "$calls" "$TMP/h" "$TMP/m" hcemu OpenMPI 1
done
