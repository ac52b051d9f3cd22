#!/bin/sh
# picks.sh - the wall-clock cost model's choice against every algorithm timed: each row runs
# the call once per algorithm that applies (HCEMU_ALGO), ROUNDS times, and prints the medians
# beside the modelled times (hcemu-run --machine-cost), the fastest, the model's pick
# (hcemu-run --machine) and the pick's time over the fastest's. A "miss" is a pick over MISS
# (1.10) x the fastest. The last lines: the misses, and how far the modelled times are from
# the measured ones (the geometric mean of modelled/measured or its inverse, whichever is
# over 1). This is how host/coll/coll_cost.c's weights are checked on a machine.
# Usage: bench/picks.sh [build-dir]   (ROUNDS=3, TARGET_MS=40, WARM_MS=100, MISS=1.10;
# ROWS="ar:RANKS:SIZE ag:RANKS:SIZE ...", SIZE from 1K to 256M by x2)
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
TARGET_MS=${TARGET_MS:-40}
WARM_MS=${WARM_MS:-100}
MISS=${MISS:-1.10}
ROWS=${ROWS:-"ar:2:64K ar:2:128K ar:2:256K ar:4:1K ar:4:16K ar:4:64K ar:4:128K ar:4:256K \
ar:4:1M ar:8:1K ar:8:16K ar:8:128K ar:8:256K ar:8:1M ag:4:128K ag:4:512K ag:4:4M ag:8:1K \
ag:8:128K ag:8:1M ag:8:4M"}
TMP=$(mktemp -d /tmp/hcemu-picks-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/mpi_lib.sh"

"$BIN/hcemu-run" --machine >"$TMP/table"
echo "$(head -1 "$TMP/table"); load average: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds"

# The model's pick for OPERATOR RANKS SIZE, from the table's column of SIZE.
model_pick() {
    awk -v op="$1" -v n="$2" -v size="$3" '
        $1 == "operator" { for (i = 3; i <= NF; i++) col[$i] = i }
        $1 == op && $2 == n && (size in col) { print $(col[size]) }' "$TMP/table"
}

# The algorithms HCEMU_ALGO may force for OP (ar, ag) at RANKS.
algorithms() {
    pow2=no
    [ $(($2 & ($2 - 1))) -eq 0 ] && pow2=yes
    case $1:$2:$pow2 in
    ar:2:*) echo "mesh twoshot" ;;
    ar:*:yes) echo "mesh twoshot ring rhd rd" ;;
    ar:*) echo "mesh twoshot ring" ;;
    ag:2:*) echo "mesh" ;;
    ag:*:yes) echo "mesh ring rhd" ;;
    ag:*) echo "mesh ring" ;;
    esac
}

rows=0 misses=0
printf '%-4s %5s %6s  %-8s %-8s %6s  %s\n' op ranks size fastest picked ratio \
    "(each algorithm: median us / modelled us)"
: >"$TMP/errors"
for row in $ROWS; do
    row_parse "$row" || { echo "picks.sh: unknown op in $row (ar or ag)" >&2; exit 2; }
    set -- $(row_calls "$row_bytes" "$TARGET_MS" "$WARM_MS")
    calls=$1 warm=$2
    pick=$(model_pick "$row_mop" "$row_n" "$row_size")
    "$BIN/hcemu-run" --machine-cost "$row_mop:$row_n:$row_size" >"$TMP/model"
    : >"$TMP/times"
    for a in $(algorithms "$row_op" "$row_n"); do
        : >"$TMP/runs"
        for r in $(seq "$ROUNDS"); do
            (HCEMU_ALGO=$row_mop:$a && export HCEMU_ALGO &&
                hcemu_time "$row_n" "$row_tool" "$row_bytes" "$calls" "$warm") >>"$TMP/runs"
        done
        t=$(median <"$TMP/runs")
        m=$(awk -v a="$a" '$1 == a { print $2 }' "$TMP/model")
        echo "$a $t ${m:-0}" >>"$TMP/times"
        awk -v t="$t" -v m="${m:-0}" 'BEGIN { if (t > 0 && m > 0) print log(m / t) }' \
            >>"$TMP/errors"
    done
    line=$(awk -v pick="$pick" -v miss="$MISS" '
        { t[$1] = $2; all = all sprintf(" %s %s/%s", $1, $2, $3)
          if ($2 > 0 && (best == "" || $2 < t[best])) best = $1 }
        END { r = (pick in t) && t[best] > 0 ? t[pick] / t[best] : 0
              printf "%-8s %-8s %6.2f %s %s", best, pick, r, (r > miss ? "MISS" : "    "), all }' \
        "$TMP/times")
    printf '%-4s %5s %6s  %s\n' "$row_op" "$row_n" "$row_size" "$line"
    rows=$((rows + 1))
    case $line in *MISS*) misses=$((misses + 1)) ;; esac
done
echo "picks over $MISS x the fastest algorithm: $misses of $rows rows"
awk '{ s += ($1 < 0 ? -$1 : $1); n++ }
     END { if (n) printf "modelled times off the measured ones by x%.2f (geometric mean of %d)\n", exp(s / n), n }' \
    "$TMP/errors"
