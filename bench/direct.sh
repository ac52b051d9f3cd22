#!/bin/sh
# direct.sh - the built-in collectives' direct reads against their HCCL-buffer forms: each row
# runs as a job of its own with direct reads off (HCEMU_DIRECT_KB=0: eager slots, staged reads)
# and on (the default), command after command, ROUNDS times, and prints the medians and the
# ratio on/off (lower is better). Both forms move the same bytes and are checked by the tests
# (collectives_direct, collectives_nodirect); this measures what a block copied once instead
# of twice is worth on this machine.
# Usage: bench/direct.sh [build-dir]   (ROWS="ag:RANKS:SIZE ar:RANKS:SIZE ...", ROUNDS=3,
# TARGET_MS=60, DIRECT_KB=16 for the direct runs; SIZE per rank as 64K, 4M)
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
TARGET_MS=${TARGET_MS:-60}
ROWS=${ROWS:-"ag:2:16K ag:2:64K ag:2:256K ag:2:4M ag:2:16M ag:4:64K ag:4:1M ag:8:1M ar:2:4M"}
TMP=$(mktemp -d /tmp/hcemu-direct-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/mpi_lib.sh"

# One timed job with HCEMU_DIRECT_KB=$1 (hcemu_time's arguments follow).
run() {
    (HCEMU_DIRECT_KB=$1 && export HCEMU_DIRECT_KB && shift && hcemu_time "$@")
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds"
printf '%-4s %5s %6s %6s %10s %10s %7s  %s\n' op ranks size calls off_us direct_us ratio \
    "(medians; then every run)"
for row in $ROWS; do
    row_parse "$row" || { echo "direct.sh: unknown op in $row (ar or ag)" >&2; exit 2; }
    set -- $(row_calls "$row_bytes" "$TARGET_MS")
    calls=$1 warm=$2
    : >"$TMP/off" && : >"$TMP/on"
    for r in $(seq "$ROUNDS"); do
        run 0 "$row_n" "$row_tool" "$row_bytes" "$calls" "$warm" >>"$TMP/off"
        run "${DIRECT_KB:-16}" "$row_n" "$row_tool" "$row_bytes" "$calls" "$warm" >>"$TMP/on"
    done
    row_print "$row_op" "$row_n" "$row_size" "$calls" "$TMP/off" "$TMP/on" off direct 2
done
