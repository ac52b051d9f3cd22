#!/bin/sh
# collectives.sh - the collective table of `make bench`: all_reduce_test and all_gather_test
# (ranks as processes under hcemu-run) at 2, 4 and 8 ranks from 1 KiB to 64 MiB, against the
# copy limit of this machine (coll_copy_bound: two threads' memcpy rate, divided by the rank
# count, since every emulated device shares the same two cores) and, when OpenMPI's mpicc and
# mpirun are installed, against MPI_Allreduce / MPI_Allgather (bench/mpi_coll.c, compiled here)
# measured in the same run: time ratio hcemu/mpi and both bus bandwidths.
# Usage: bench/collectives.sh [build-dir]   (ITERS, WARMUP, SMALL_ITERS, SMALL_WARMUP, SMALL_MAX,
# MAXB, RANKS, FACTOR, TOOLS, CLIFF_US, REPEAT, WARM_MS, MPI_TIMEOUT, SLOW_FROM, SLOW_RATIO
# override)
# Cliffs: sizes step by FACTOR (default 4; 2 for the cliff sweep). A row breaks the rule when
# its time is more than FACTOR x the previous row's plus CLIFF_US (default 30 us: the spread
# of an 8-rank small call between runs on a quiet 2-core machine), or, where the machine's own
# copy steps more steeply between the two sizes (the buffers leave a cache: coll_copy_bound
# with sizes, copying half of a footprint as large as the job's buffers into the other
# half, or for an allgather each rank's copy of all the inputs into its output (copy_key),
# with memcpy where hcemu keeps the job's transfers cached and with its streaming copy
# past that, as its transfers do: copy_times), more than that step. Such a row is timed again
# REPEAT (3) times: each time both sizes in jobs of their own, warmed for WARM_MS (500 ms) first, and then the machine's copy
# of both footprints, back to back, so that each run is judged against the machine's step of
# the same minute, the rule's constant then being the spread of the larger size's runs where
# that is more than CLIFF_US. It is marked CLIFF when every one of those runs breaks the rule,
# "steep once" otherwise; the last line counts both. Each verdict also gives hcemu's time over
# the copy's at both sizes (medians of the runs), which tells a step of the machine's (about
# the same figure at both) from one of hcemu's own (the figure rising).
# Against OpenMPI: a row from SLOW_FROM (64 KiB) whose time is over SLOW_RATIO (1.1) x
# OpenMPI's in the sweep is timed again REPEAT times, each time hcemu's job (warmed as above)
# and then OpenMPI's of that size alone with as many warm-up calls, command after command,
# since the sweep times OpenMPI for a whole rank count minutes before hcemu's jobs. It is
# marked SLOW when the median ratio of those runs is still over SLOW_RATIO, "slower once"
# otherwise; the last line counts both.
# `make bench` runs the long sweep: FACTOR=2, 1 KiB-256 MiB, 2-16 ranks, every tool.
# Up to SMALL_MAX (1 MiB) 200 timed calls after 20 warm-up ones per size, above it 20 after 5,
# and at least 20 x 16 MiB of data (4 MiB: 80 calls; mpi_coll.c counts alike): each size's
# first calls touch fresh pages of the buffers and of the HCCL buffer's slots, and on a VM
# where a page fault costs 15-20 us (bench_startup measures it) they weighed on the mean of a
# short loop up to 10x (with 5 after 2) and still 2-4x at 1 KiB-1 MiB with 20 after 5; a
# 20-call 4 MiB loop (5 ms) varied 240-600 us a call between runs.
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-5}
SMALL_ITERS=${SMALL_ITERS:-200}
SMALL_WARMUP=${SMALL_WARMUP:-20}
SMALL_MAX=${SMALL_MAX:-1M}
MAXB=${MAXB:-64M}
RANKS=${RANKS:-"2 4 8"}
FACTOR=${FACTOR:-4}
TOOLS=${TOOLS:-"all_reduce_test all_gather_test"}
CLIFF_US=${CLIFF_US:-30}
REPEAT=${REPEAT:-3}
[ "$REPEAT" -ge 1 ] || REPEAT=1 # a verdict needs a run of its own
WARM_MS=${WARM_MS:-500} # warm-up of a re-timed row's jobs (warm_for)
MPI_TIMEOUT=${MPI_TIMEOUT:-600} # seconds for one rank count's MPI sweep (partial rows kept)
SLOW_FROM=${SLOW_FROM:-64K}
SLOW_RATIO=${SLOW_RATIO:-1.1}
TMP=$(mktemp -d /tmp/hcemu-collbench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM

echo "copy bound: two threads' memcpy rate (measured again before each rank count) / n;"
echo "of_stream: the same with the streaming copy of hcemu's data plane (common/platform/copy.h) instead"

# Optional MPI baseline: bench/mpi_coll.c compiled here with mpicc, never part of the build.
BENCH=$(cd "$(dirname "$0")" && pwd)
. "$BENCH/mpi_lib.sh"
mpi=""
if mpi_build "$TMP/mpi_coll" "$TMP/mpicc.txt"; then
    mpi=yes
fi
[ -n "$mpi" ] || echo "OpenMPI (mpicc, mpirun) not installed: no MPI column"

maxbytes=$(bytes_of "$MAXB")
slowfrom=$(bytes_of "$SLOW_FROM")
smallmax=$(bytes_of "$SMALL_MAX")

# The machine's own step: the time two threads take to copy half the bytes of the job's
# buffers into the other half, the same footprint as the job's, per size, from
# coll_copy_bound. "half_of TOOL BYTES": that half at n ranks (allgather, reduce-scatter and
# scatter: an input of BYTES / n and an output of BYTES per rank, or the other way round;
# the others about BYTES each way). "copy_us BYTES" reads the time (empty: none).
half_of() {
    case $1 in
    all_gather_test | reduce_scatter_test | scatter_test) echo $(((n + 1) * $2 / 2)) ;;
    *) echo $((n * $2)) ;;
    esac
}
copy_us() {
    awk -v b="$1" '$1 == b { print $2 }' "$TMP/copy.txt"
}

# An allgather's copy is the gather one (coll_copy_bound -g n): every rank reads all the
# inputs, BYTES together, into its output, so the inputs are read n times and the machine's
# step comes where they leave the cache. The split copy of the same footprint never finds its
# source in the cache past it, and held the 4- and 8-rank allgathers, which step with the
# gather copy from 64 to 128 MiB (x2.4), to its x2.0. "copy_key TOOL BYTES": the size
# copy.txt keys the row's copy by, BYTES for the gather copy and half_of otherwise;
# "footprint_of TOOL KEY": the bytes of the job's buffers for that key, twice half_of.
copy_key() {
    case $1 in
    all_gather_test) echo "$2" ;;
    *) half_of "$1" "$2" ;;
    esac
}
footprint_of() {
    case $1 in
    all_gather_test) echo $((2 * $(half_of "$1" "$2"))) ;;
    *) echo $((2 * $2)) ;;
    esac
}

# The footprint up to which hcemu keeps a call's transfers cached: three quarters of the
# machine's cache figure (host/coll/coll_plan.c; 0: the figure is unknown).
cache_mib=$("$BIN/hcemu-run" --machine 2>/dev/null </dev/null |
    sed -n 's/^HCEMU_MACHINE=.*cache=\([0-9]*\).*/\1/p')
room=$((${cache_mib:-0} * 1048576 / 4 * 3))

# copy_times TOOL KEY...: "KEY US" per size, the copy copy_key names for TOOL, by the method
# hcemu's transfers use at its footprint: memcpy while it fits the room, the streaming copy
# past it. glibc's memcpy switches to non-temporal stores at a threshold of its own, from the
# L3 the CPU reports (480 MiB on the Intel machine): against it, 2-rank allgathers of 128 and
# 256 MiB, streaming both, were held to the x1.24 of memcpy's switch.
copy_times() {
    ct_c="" ct_s="" ct_g="" ct_tool=$1
    shift
    [ "$ct_tool" != all_gather_test ] || ct_g="-g $n"
    for ct_b in "$@"; do
        if [ "$room" -eq 0 ] || [ "$(footprint_of "$ct_tool" "$ct_b")" -le "$room" ]; then
            ct_c="$ct_c $ct_b"
        else
            ct_s="$ct_s $ct_b"
        fi
    done
    # shellcheck disable=SC2086
    { [ -z "$ct_c" ] || "$BIN/coll_copy_bound" $ct_g $ct_c; } &&
        { [ -z "$ct_s" ] || "$BIN/coll_copy_bound" -s $ct_g $ct_s; }
}

# steep PREV_US US COPY_PREV_US COPY_US [SLACK_US]: whether the row breaks the rule: more than
# FACTOR x the previous size's time, or the machine's copy step if that is steeper, plus
# SLACK_US (default CLIFF_US). Empty copy times: FACTOR alone.
steep() {
    awk -v p="$1" -v u="$2" -v f="$FACTOR" -v k="${5:-$CLIFF_US}" -v mp="$3" -v m="$4" 'BEGIN {
            step = f;
            if (mp != "" && m != "" && mp > 0 && m / mp > step)
                step = m / mp;
            exit !(u + 0 > step * p + k);
        }'
}

# over_copy H C: "xR", the median over the re-timed runs (again.txt) of hcemu's time in
# column H over the copy's in column C; "x-" when no run has both.
over_copy() {
    awk -v h="$1" -v c="$2" '$h > 0 && $c > 0 { print $h / $c }' "$TMP/again.txt" | median |
        awk '{ printf($1 > 0 ? "x%.2f" : "x-", $1) }'
}

# copy_pair TOOL PREV_BYTES BYTES: "PREV_US US", the machine's copy of the two sizes'
# footprints timed now. The VM's memory rate moves by half within minutes (the 8-rank 16 MiB
# allgather took 2.9-4.9 ms in three rounds, the copy of its footprint 3.0-4.8 ms beside it),
# so a step is judged against a copy timed in the same minute.
copy_pair() {
    hp=$(copy_key "$1" "$2") hb=$(copy_key "$1" "$3")
    copy_times "$1" "$hp" "$hb" </dev/null 2>/dev/null |
        awk -v a="$hp" -v b="$hb" '$1 == a { x = $2 } $1 == b { y = $2 } END { print x, y }'
}

# The rate at which this machine's two cores pass small tasks to each other
# (bench_task_floor's first row, M tasks/s): on a virtual machine it falls four- to fivefold
# for minutes at a time, and every copy of lines the other core wrote slows with it
# (docs/PERFORMANCE.md, "The cliffs left"). Printed beside the verdicts so that a reader can
# tell such a spell from a cliff of hcemu's own; "-" when the program is missing.
cores_rate() {
    r=$("$BIN/bench_task_floor" 2>/dev/null </dev/null | awk '$1 == 128 { print $2; exit }') || true
    echo "${r:--}"
}

# Calls and warm-up calls for a job of one size, as the sweep times them.
iters_for() {
    if [ "$1" -le "$smallmax" ]; then
        echo "$SMALL_ITERS $SMALL_WARMUP"
    else
        i=$((ITERS * 16777216 / $1))
        [ "$i" -ge "$ITERS" ] || i=$ITERS
        echo "$i $WARMUP"
    fi
}

# warm_for US MIN: warm-up calls that take about WARM_MS at US microseconds a call (at least
# MIN, the sweep's own count, at most 100000). A job's first tenths of a second run slower:
# its start-up makes the executors' polls pause job-wide for up to 100 ms
# (docs/PERFORMANCE.md, "The cliffs left"), and a row re-timed in a job of its own after 20
# warm-up calls measured that start, not the size (4-rank 256 KiB allreduce: 127-227 us after
# 20 calls, 97-146 after 2000).
warm_for() {
    awk -v us="$1" -v ms="$WARM_MS" -v min="$2" 'BEGIN {
        w = us > 0 ? int(ms * 1000 / us) + 1 : min;
        w = w < min ? min : w > 100000 ? 100000 : w;
        print w;
    }'
}

# job_time N TOOL BYTES EST_US: the time of a call of BYTES at N ranks, in a job of its own
# warmed for WARM_MS at EST_US a call (the time the sweep measured); 0 when the job failed.
job_time() {
    # shellcheck disable=SC2046
    set -- "$1" "$2" "$3" "$4" $(iters_for "$3")
    t=$("$BIN/hcemu-run" -n "$1" -- "$BIN/$2" -b "$3" -e "$3" -n "$5" -w "$(warm_for "$4" "$6")" \
        -c 0 -B 1 2>&1 | awk -F'|' '/^\[rank 0\] [0-9]+ +\|/ { print $2 + 0; exit }')
    echo "${t:-0}"
}

# pair_times N TOOL SMALL BIG SMALL_US BIG_US: "SMALL_US BIG_US", each size in a job of its
# own (job_time).
pair_times() {
    echo "$(job_time "$1" "$2" "$3" "$5") $(job_time "$1" "$2" "$4" "$6")"
}

# slow_verdict N TOOL OP BYTES US: for a row over SLOW_RATIO x OpenMPI in the sweep, REPEAT
# runs of hcemu's job then OpenMPI's, command after command; " SLOW (...)" when their median
# ratio is still over SLOW_RATIO, " slower once (...)" otherwise.
slow_verdict() {
    # shellcheck disable=SC2046
    set -- "$1" "$2" "$3" "$4" "$5" $(iters_for "$4")
    sv_warm=$(warm_for "$5" "$7")
    : >"$TMP/slow.txt"
    for _ in $(seq "$REPEAT"); do
        sv_h=$(job_time "$1" "$2" "$4" "$5" </dev/null)
        sv_m=$(mpi_time "$TMP/mpi_coll" "$1" "$3" "$4" "$6" "$sv_warm" </dev/null)
        echo "$sv_h ${sv_m:-0}" >>"$TMP/slow.txt"
    done
    awk -v lim="$SLOW_RATIO" '$1 > 0 && $2 > 0 {
            r[++n] = $1 / $2;
            runs = runs sprintf(" %.1f/%.1f", $1, $2);
        }
        END {
            if (n == 0) { print " slower once (no run of both finished)"; exit }
            for (i = 1; i <= n; i++) # sorted, for the median
                for (j = i + 1; j <= n; j++)
                    if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
            m = r[int((n + 1) / 2)];
            printf(" %s (median x%.2f OpenMPI in %d runs, hcemu/OpenMPI us:%s)\n",
                   m > lim ? "SLOW" : "slower once", m, n, runs);
        }' "$TMP/slow.txt"
}

# mpi_too STEP MPI MPI_PREV: ", OpenMPI too: xR" when OpenMPI's time rose within a quarter as
# steeply (STEP: the row's median step) over the same sizes in the same run.
mpi_too() {
    awk -v s="$1" -v m="$2" -v mp="$3" 'BEGIN {
        if (m != "" && mp != "" && mp > 0 && (m / mp) * 1.25 >= s)
            printf(", OpenMPI too: x%.1f", m / mp);
    }'
}

printf '\n%-13s %5s %10s %11s %11s %10s %8s %9s %11s %11s %9s %s\n' collective ranks bytes hcemu_us \
    busbw_GB/s bound_GB/s of_bound of_stream mpi_us mpi_busbw hcemu/mpi cliff
{
for n in $RANKS; do
    # shellcheck disable=SC2046
    set -- $("$BIN/coll_copy_bound")
    copy=$1 stream=$2
    echo "# copy bound at $n ranks: memcpy $copy GB/s, streaming $stream GB/s (two threads);" \
        "cores passing $(cores_rate) M tasks/s"
    : >"$TMP/mpi.txt"
    if [ -n "$mpi" ] && ! mpi_run "$MPI_TIMEOUT" "$n" \
        "$TMP/mpi_coll" "$maxbytes" "$ITERS" "$WARMUP" "$smallmax" "$SMALL_ITERS" "$SMALL_WARMUP" "$FACTOR" \
        >"$TMP/mpi.txt" 2>"$TMP/mpi.err"; then
        echo "mpirun -n $n failed or timed out (rows it finished are kept): $(head -c 300 "$TMP/mpi.err")"
    fi
    for tool in $TOOLS; do
        name=$(echo "$tool" | sed 's/_test$//;s/_//g')
        sizes="" b=1024
        while [ "$b" -le "$maxbytes" ]; do
            sizes="$sizes $(copy_key "$tool" "$b")"
            b=$((b * FACTOR))
        done
        # shellcheck disable=SC2086
        copy_times "$tool" $sizes >"$TMP/copy.txt" || true
        : >"$TMP/out.txt"
        # The sizes from 1 KiB, x FACTOR: the small ones in one sweep, then each larger one in a job
        # of its own, so that no row depends on the sizes before it (one such dependence, a
        # peer mapping that moved between two sizes, was found this way: docs/PERFORMANCE.md,
        # "A peer mapping that moved").
        small_end=$smallmax
        [ "$maxbytes" -ge "$smallmax" ] || small_end=$maxbytes
        sweeps="1024 $small_end $SMALL_ITERS $SMALL_WARMUP"
        big=$((smallmax * FACTOR))
        while [ "$big" -le "$maxbytes" ]; do
            sweeps="$sweeps
$big $big $(iters_for "$big")"
            big=$((big * FACTOR))
        done
        echo "$sweeps" | while read -r sweep; do
            set -- $sweep
            [ "$1" -le "$2" ] || continue
            if ! "$BIN/hcemu-run" -n "$n" -- "$BIN/$tool" -b "$1" -e "$2" -f "$FACTOR" -n "$3" -w "$4" \
                -c 0 -B 1 >"$TMP/sweep.txt" 2>&1; then
                echo "$tool at $n ranks failed:"
                grep -v '^\[rank [0-9]*\] [0-9]' "$TMP/sweep.txt" | head -5
            fi
            cat "$TMP/sweep.txt" >>"$TMP/out.txt"
        done
        prev="" prevm="" prevb=""
        grep -E '^\[rank 0\] [0-9]+ +\|' "$TMP/out.txt" | sed 's/^\[rank 0\] //' |
        while IFS='|' read -r bytes us alg bus res; do
            bytes=$((bytes + 0))
            m=$(awk -v o="$name" -v b="$bytes" '$1 == o && $2 == b + 0 { print $3 }' "$TMP/mpi.txt")
            verdict=""
            if [ -n "$prev" ] && steep "$prev" "$us" "$(copy_us "$(copy_key "$tool" "$prevb")")" \
                "$(copy_us "$(copy_key "$tool" "$bytes")")"; then
                # Steeper than the rule: a cliff only if every run again is. Each run: the two
                # sizes in jobs of their own, then the copy of their footprints ("S B CS CB").
                : >"$TMP/again.txt"
                for _ in $(seq "$REPEAT"); do
                    t=$(pair_times "$n" "$tool" "$prevb" "$bytes" "$prev" "$us" </dev/null)
                    echo "$t $(copy_pair "$tool" "$prevb" "$bytes")" >>"$TMP/again.txt"
                done
                # The rule's small constant is how far the larger size's runs spread, and at
                # least CLIFF_US: 30 us is the spread of a small call, while calls of 20 ms
                # spread by a millisecond or more from run to run.
                slack=$(awk -v k="$CLIFF_US" '$2 > 0 && !seen++ { lo = hi = $2 }
                    $2 > 0 { lo = $2 < lo ? $2 : lo; hi = $2 > hi ? $2 : hi }
                    END { printf("%.0f\n", hi - lo > k ? hi - lo : k) }' "$TMP/again.txt")
                broken=0
                while read -r s b cs cb; do
                    if [ "$s" != 0 ] && [ "$b" != 0 ] && steep "$s" "$b" "$cs" "$cb" "$slack"; then
                        broken=$((broken + 1)) # a job that failed (0) is no evidence
                    fi
                done <"$TMP/again.txt"
                # "x2.31/x2.05 ..." per run: the row's step and the copy's; then the median step.
                # A job that failed reads 0 and a copy that failed nothing: "x-" for those.
                steps=$(awk 'function x(a, b) { return a > 0 ? sprintf("x%.2f", b / a) : "x-" }
                    { printf("%s%s/%s", NR > 1 ? " " : "", x($1, $2), x($3, $4)) }' "$TMP/again.txt")
                med=$(awk '$1 > 0 { print $2 / $1 }' "$TMP/again.txt" | median)
                # hcemu's time over the copy's at each size (medians): a row at the machine's
                # pace at the larger size reads about 1 there, and a smaller figure before it
                # is the smaller call gaining more than the copy did.
                pace="hcemu/copy $(over_copy 1 3) -> $(over_copy 2 4)"
                rate="cores passing $(cores_rate) M tasks/s"
                if [ "$broken" -eq "$REPEAT" ]; then
                    verdict=" CLIFF (steps against the copy's: $steps, runs spread $slack us$(mpi_too "$med" "$m" "$prevm"); $pace; $rate)"
                else
                    verdict=" steep once ($broken of $REPEAT runs; steps against the copy's: $steps, runs spread $slack us; $pace; $rate)"
                fi
            fi
            if [ -n "$m" ] && [ "$bytes" -ge "$slowfrom" ] &&
                awk -v u="$us" -v m="$m" -v l="$SLOW_RATIO" \
                    'BEGIN { exit !(m > 0 && u / m > l) }'; then
                verdict="$verdict$(slow_verdict "$n" "$tool" "$name" "$bytes" "$us")"
            fi
            awk -v c="$name" -v n="$n" -v b="$bytes" -v us="$us" -v bus="$bus" -v cp="$copy" \
                -v st="$stream" -v m="${m:-}" -v v="$verdict" 'BEGIN {
                    bound = cp / n;
                    sbound = st / n;
                    f = c == "allreduce" ? 2 * (n - 1) / n : (n - 1) / n;
                    printf("%-13s %5d %10d %11.1f %11.4f %10.3f %8.3f %9.3f ", c, n, b, us, bus,
                           bound, (bound > 0 ? bus / bound : 0), (sbound > 0 ? bus / sbound : 0));
                    if (m != "" && m > 0)
                        printf("%11.1f %11.4f %9.2f", m, b / (m * 1000) * f, us / m);
                    else
                        printf("%11s %11s %9s", "-", "-", "-");
                    printf("%s\n", v);
                }'
            prev=$us prevm=$m prevb=$bytes
        done
    done
done
} | tee "$TMP/table.txt"
echo "cliffs (a row over $FACTOR x the previous size's time, or the machine's copy step if steeper," \
    "+ $CLIFF_US us, in every one of $REPEAT runs): $(grep -c ' CLIFF' "$TMP/table.txt" || true)," \
    "of which OpenMPI's time rose as steeply: $(grep -c ' CLIFF.*OpenMPI too' "$TMP/table.txt" || true);" \
    "steep once, not repeated: $(grep -c ' steep once' "$TMP/table.txt" || true)"
slow=$(grep -c ' SLOW (' "$TMP/table.txt" || true)
once=$(grep -c ' slower once' "$TMP/table.txt" || true)
echo "over $SLOW_RATIO x OpenMPI from $SLOW_FROM (the median of $REPEAT runs each, command after" \
    "command): $slow; in the sweep only: $once"
