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

# One timed job: the stream's time per call of rank 0 (hccl_test's column), `kb` the setting.
run() {
    HCEMU_DIRECT_KB=$1 "$BIN/hcemu-run" -n "$2" "$BIN/$3" -b "$4" -e "$4" -n "$5" -w "$6" \
        -c 0 2>/dev/null | awk '/^\[rank 0\] [0-9]/ { print $5; exit }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds"
printf '%-4s %5s %6s %6s %10s %10s %7s  %s\n' op ranks size calls off_us direct_us ratio \
    "(medians; then every run)"
for row in $ROWS; do
    op=${row%%:*} rest=${row#*:}
    n=${rest%%:*} size=${rest#*:}
    b=$(bytes_of "$size")
    case $op in
    ar) tool=all_reduce_test ;;
    ag) tool=all_gather_test ;;
    *) echo "direct.sh: unknown op $op in $row (ar or ag)" >&2; exit 2 ;;
    esac
    set -- $(row_calls "$b" "$TARGET_MS")
    calls=$1 warm=$2
    : >"$TMP/off" && : >"$TMP/on"
    for r in $(seq "$ROUNDS"); do
        run 0 "$n" "$tool" "$b" "$calls" "$warm" >>"$TMP/off"
        run "${DIRECT_KB:-16}" "$n" "$tool" "$b" "$calls" "$warm" >>"$TMP/on"
    done
    off=$(median <"$TMP/off") on=$(median <"$TMP/on")
    printf '%-4s %5s %6s %6s %10s %10s %7s  off %s| direct %s\n' "$op" "$n" "$size" "$calls" \
        "$off" "$on" "$(awk -v a="$on" -v b="$off" 'BEGIN { print (b > 0 ? sprintf("%.2f", a / b) : "-") }')" \
        "$(tr '\n' ' ' <"$TMP/off")" "$(tr '\n' ' ' <"$TMP/on")"
done
