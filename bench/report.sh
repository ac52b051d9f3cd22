#!/bin/sh
# report.sh - `make bench-report`: runs the benchmarks whose figures the documentation shows and
# writes them to OUT (docs/perf): report.md (the tables), the plots time.svg, busbw.svg and
# model.svg (gnuplot), the data behind them (*.dat, *.txt), and the summary table of README.md,
# between its bench-report markers.
#
#   time.svg   per collective and rank count, time against size: hcemu, OpenMPI, copy bound
#   busbw.svg  the same runs as bus bandwidth, beside the memcpy and streaming copy bounds
#   model.svg  modelled Atlas 350 time of every algorithm (hcemu-model-table), 8 ranks
#
# Usage: bench/report.sh [build-dir] [out-dir]   (MAXB, RANKS, ITERS... as bench/collectives.sh;
# README: the file whose summary table is replaced, empty to leave it alone; PLOT_ONLY=1: run
# nothing, write the tables and plots again from the figures already in out-dir)
# Needs gnuplot; OpenMPI (mpicc, mpirun) for the MPI columns (`make bench-deps` installs both).
# No figure carries a date: history is in git. The machine and its load are printed instead.
set -eu
BUILD=${1:-build}
OUT=${2:-docs/perf}
BIN=$BUILD/bin
README=${README-README.md}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v gnuplot >/dev/null 2>&1 || {
    echo "bench/report.sh: gnuplot is not installed (make bench-deps)" >&2
    exit 1
}
mkdir -p "$OUT"
TMP=$(mktemp -d /tmp/hcemu-report-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM

load() { cut -d' ' -f1 /proc/loadavg; }
# The smallest and largest rank counts of the sweep, for the small-call rows.
SMALL_LO=$(echo ${RANKS:-2 4 8} | awk '{ print $1 }')
SMALL_HI=$(echo ${RANKS:-2 4 8} | awk '{ print $NF }')
load_start=$(load)

if [ -z "${PLOT_ONLY:-}" ]; then
    echo "== bench/collectives.sh (minutes)"
    "$HERE/collectives.sh" "$BUILD" | tee "$OUT/collectives.txt"
    echo "== hcemu-model-table"
    "$BIN/hcemu-model-table" | tee "$OUT/model.txt"
    echo "== bench_dataplane --quick"
    "$BIN/bench_dataplane" --quick tasks handoffs | tee "$OUT/dataplane.txt"
    echo "== bench/launch.sh"
    "$HERE/launch.sh" "$BUILD" | tee "$OUT/launch.txt"
    echo "== bench_startup 8"
    "$BIN/bench_startup" 8 | tee "$OUT/startup.txt"
    # Small calls, and the 2-rank calls from 64 KiB where a copy more or less shows.
    echo "== bench/versus.sh (medians of three runs)"
    ROWS="ar:$SMALL_LO:1K ar:4:1K ag:4:1K ar:$SMALL_HI:1K ag:$SMALL_HI:1K ag:2:64K ag:2:256K \
ar:4:128K ag:4:128K ar:8:128K ag:8:128K ar:8:256K ag:8:256K ar:2:1M ag:2:4M ar:2:4M ag:2:16M" \
        "$HERE/versus.sh" "$BUILD" | tee "$OUT/versus.txt"
    printf '%s %s\n' "$load_start" "$(load)" >"$OUT/load.txt"
fi
# The load average at the start and the end of the run that made the figures.
read -r load_start load_end <"$OUT/load.txt"

# ---- data files ---------------------------------------------------------------------------
# collectives.dat: coll n bytes hcemu_us busbw bound of_bound of_stream mpi_us mpi_busbw ratio,
# and the two bounds per rank count in bounds.dat: n memcpy_GBps streaming_GBps.
grep -E '^(allreduce|allgather) ' "$OUT/collectives.txt" >"$OUT/collectives.dat" || true
sed -n 's/^# copy bound at \([0-9]*\) ranks: memcpy \([0-9.]*\) GB\/s, streaming \([0-9.]*\).*/\1 \2 \3/p' \
    "$OUT/collectives.txt" >"$OUT/bounds.dat"
# model.dat: coll bytes then modelled us per algorithm (allreduce: mesh twoshot ring rhd;
# allgather: mesh ring rhd), then the vendor formula of each.
awk '
    /^allreduce, / { c = "allreduce"; next }
    /^allgather, / { c = "allgather"; next }
    /^vendor templates/ { c = "" }
    c != "" && $1 ~ /^[0-9]+$/ {
        line = c " " $1; vend = ""
        for (i = 2; i + 2 <= NF && $(i + 1) == "/"; i += 3) { line = line " " $i; vend = vend " " $(i + 2) }
        print line vend
    }' "$OUT/model.txt" >"$OUT/model.dat"
[ -s "$OUT/collectives.dat" ] || { echo "bench/report.sh: no collective rows" >&2; exit 1; }

ranks=$(awk '{ print $2 }' "$OUT/collectives.dat" | sort -un | tr '\n' ' ')
ncols=$(echo $ranks | wc -w)
mpi=$(awk '$9 != "-" { print "yes"; exit }' "$OUT/collectives.dat")

# ---- plots --------------------------------------------------------------------------------
for c in allreduce allgather; do
    for n in $ranks; do
        awk -v c=$c -v n=$n '$1 == c && $2 == n' "$OUT/collectives.dat" >"$TMP/$c.$n"
    done
done
# The copy bound as a time: the call moves bytes x f over the bus at bound GB/s.
plots() { # $1 = time | busbw
    for c in allreduce allgather; do
        for n in $ranks; do
            f="(n - 1.0) / n"
            [ $c = allgather ] || f="2 * (n - 1.0) / n"
            cat <<EOF
n = $n; f = $f
set title "$c, $n ranks"
EOF
            if [ "$1" = time ]; then
                cat <<EOF
plot '$TMP/$c.$n' u 3:4 w lp pt 7 ps 0.5 lc rgb '#d62728' t 'hcemu', \\
     '$TMP/$c.$n' u 3:(\$9 > 0 ? \$9 : 1/0) w lp pt 5 ps 0.5 lc rgb '#1f77b4' t 'OpenMPI', \\
     '$TMP/$c.$n' u 3:(\$3 * f / \$6 / 1000) w l dt 2 lc rgb '#444444' t 'copy bound'
EOF
            else
                s=$(awk -v n=$n '$1 == n { print $3 / n }' "$OUT/bounds.dat")
                cat <<EOF
plot '$TMP/$c.$n' u 3:5 w lp pt 7 ps 0.5 lc rgb '#d62728' t 'hcemu', \\
     '$TMP/$c.$n' u 3:(\$10 > 0 ? \$10 : 1/0) w lp pt 5 ps 0.5 lc rgb '#1f77b4' t 'OpenMPI', \\
     '$TMP/$c.$n' u 3:6 w l dt 2 lc rgb '#444444' t 'memcpy bound', \\
     ${s:-0} w l dt 3 lc rgb '#2ca02c' t 'streaming bound'
EOF
            fi
        done
    done
}
common="set terminal svg size $((ncols * 420)),720 dynamic font 'sans,11' background rgb 'white'
set logscale x 2
set format x '%.0b%B'
set xlabel 'bytes per rank (allgather: gathered output)'
set grid
set key top left"
{
    echo "$common"
    echo "set output '$OUT/time.svg'"
    echo "set multiplot layout 2,$ncols"
    echo "set logscale y; set ylabel 'µs per call'"
    plots time
    echo "unset multiplot"
} >"$TMP/time.gp"
{
    echo "$common"
    echo "set output '$OUT/busbw.svg'"
    echo "set multiplot layout 2,$ncols"
    echo "set logscale y; set ylabel 'bus bandwidth, GB/s'; set key bottom right"
    plots busbw
    echo "unset multiplot"
} >"$TMP/busbw.gp"
{
    cat <<EOF
set terminal svg size 900,420 dynamic font 'sans,11' background rgb 'white'
set output '$OUT/model.svg'
set logscale xy; set logscale x 2; set format x '%.0b%B'; set grid; set key top left
set ylabel 'modelled µs per call'
set multiplot layout 1,2
set title 'allreduce, 8 ranks (modelled Atlas 350)'
set xlabel 'bytes'
plot for [i=3:6] '< grep ^allreduce $OUT/model.dat' u 2:i w lp pt 7 ps 0.5 t word('mesh twoshot ring rhd', i - 2)
set title 'allgather, 8 ranks (modelled Atlas 350)'
set xlabel 'bytes per rank'
plot for [i=3:5] '< grep ^allgather $OUT/model.dat' u 2:i w lp pt 7 ps 0.5 t word('mesh ring rhd', i - 2)
unset multiplot
EOF
} >"$TMP/model.gp"
for g in time busbw model; do
    gnuplot "$TMP/$g.gp"
done

# ---- tables -------------------------------------------------------------------------------
size() { awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%g MiB", b / 1048576;
                                 else printf "%g KiB", b / 1024 }'; }
row() { # coll n bytes -> the collectives.dat row
    awk -v c="$1" -v n="$2" -v b="$3" '$1 == c && $2 == n && $3 == b' "$OUT/collectives.dat"
}
maxb=$(awk '{ print $3 }' "$OUT/collectives.dat" | sort -n | tail -1)
nmin=$(echo $ranks | awk '{ print $1 }')
nmax=$(echo $ranks | awk '{ print $NF }')
cpus=$(nproc)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
shared=$(awk -v a="$load_start" -v b="$load_end" -v c="$cpus" \
    'BEGIN { print (a > c / 2 || b > c / 2) ? "yes" : "" }')

# summary.md: one row per measure, the command that made it; README.md shows it.
{
    echo "| measure | hcemu | beside it, same run | command |"
    echo "|---|---|---|---|"
    # Calls timed against OpenMPI: the medians of bench/versus.sh when OpenMPI is there (the
    # sweep's first size carries the job's start-up), else the sweep's small-call rows.
    if grep -q '^a[rg] ' "$OUT/versus.txt" 2>/dev/null; then
        awk '/^a[rg] / {
            s = $3; sub(/K$/, " KiB", s); sub(/M$/, " MiB", s)
            printf "| %s %s, %d ranks, time (median of 3 runs) | %.1f µs | OpenMPI %.1f µs (%s×) | `bench/versus.sh` |\n",
                ($1 == "ar" ? "allreduce" : "allgather"), s, $2, $5, $6, $7 }' "$OUT/versus.txt"
    else
        for spec in "allreduce $nmin 1024" "allreduce $nmax 1024" "allgather $nmax 1024"; do
            set -- $spec
            row "$@" | awk -v s="$(size $3)" '{
                printf "| %s %s, %d ranks, time | %.1f µs | OpenMPI %s | `bench/collectives.sh` |\n",
                    $1, s, $2, $4, ($9 == "-" ? "not installed" : sprintf("%.1f µs", $9)) }'
        done
    fi
    for c in allgather allreduce; do
        row $c "$nmax" "$maxb" | awk -v s="$(size "$maxb")" '{
            printf "| %s %s, %d ranks, bus bandwidth | %.2f GB/s, %.2f of the copy bound | copy bound %.2f GB/s; OpenMPI %s | `bench/collectives.sh` |\n",
                $1, s, $2, $5, $7, $6, ($10 == "-" ? "not installed" : sprintf("%.2f GB/s", $10)) }'
    done
    ch=$(awk '/^channel notify/ { print $5 }' "$OUT/dataplane.txt")
    th=$(awk '/^thread notify/ { print $5 }' "$OUT/dataplane.txt")
    fx=$(awk '/^futex ping-pong/ { print $5 }' "$OUT/dataplane.txt")
    sp=$(awk '/^spinning ping-pong/ { print $5 }' "$OUT/dataplane.txt")
    echo "| notify hand-off across devices, one way | $ch µs | futex ping-pong $fx µs, spinning $sp µs | \`bench_dataplane --quick\` |"
    echo "| thread notify hand-off, one way | $th µs | same | \`bench_dataplane --quick\` |"
    tc=$(awk '/^64-byte LocalCopy/ { print $3 }' "$OUT/dataplane.txt")
    tn=$(awk '/^notify record \+ wait/ { print $6 }' "$OUT/dataplane.txt")
    echo "| small tasks per device (64-byte copies / record + wait) | $tc / $tn M/s | | \`bench_dataplane --quick\` |"
    sed -n 's/.*p10 \([0-9.]*\) us, median \([0-9.]*\) us, p90 \([0-9.]*\) us.*/| kernel launch to first task | median \2 µs (p10 \1, p90 \3) | | `bench\/launch.sh` |/p' \
        "$OUT/launch.txt"
    sed -n 's/^startup *8 ranks: aclInit.*first kernel done \([0-9.]*\) ms.*/| job start to first kernel, 8 devices | \1 ms | | `bench_startup 8` |/p' \
        "$OUT/startup.txt"
    awk '$1 == "allreduce" && $2 == 1024 { printf "| modelled 8-rank 1 KiB allreduce (mesh) | %.1f µs | vendor formula %.1f µs | `hcemu-model-table` |\n", $3, $7 }' \
        "$OUT/model.dat"
} >"$OUT/summary.md"

machine="$cpus CPUs ($cpu), $mem; load average $load_start at the start and $load_end at the end"
{
    echo "# Benchmark report"
    echo
    echo "Written by \`make bench-report\` (\`bench/report.sh\`); how to read the figures and what"
    echo "limits them: [PERFORMANCE.md](../PERFORMANCE.md). Machine: $machine."
    if [ -n "$shared" ]; then
        echo "**Figures from a shared machine**: other jobs ran on its cores during the run, so the"
        echo "times are pessimistic and single rows may move by 2× between runs."
    fi
    echo
    echo "## Summary"
    echo
    cat "$OUT/summary.md"
    echo
    echo "## Collectives"
    echo
    echo "\`bench/collectives.sh\`: \`all_reduce_test\` and \`all_gather_test\` as processes under"
    echo "\`hcemu-run\`, beside OpenMPI's \`MPI_Allreduce\` / \`MPI_Allgather\` with the same counts"
    [ -n "$mpi" ] || echo "(OpenMPI was not installed: no MPI column)"
    echo "in the same run. The copy bound is two threads' \`memcpy\` rate divided by the rank count"
    echo "(every emulated device shares the same cores); the streaming bound the same with"
    echo "non-temporal stores, which the data plane uses from 1 MiB."
    echo
    echo "![time against size](time.svg)"
    echo
    echo "![bus bandwidth against the bounds](busbw.svg)"
    echo
    echo "| collective | ranks | bytes | hcemu µs | busbw GB/s | of bound | of streaming bound | OpenMPI µs | OpenMPI busbw | hcemu / OpenMPI |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk '{ printf "| %s | %d | %d | %.1f | %.3f | %.3f | %.3f | %s | %s | %s |\n",
               $1, $2, $3, $4, $5, $7, $8, $9, $10, $11 }' "$OUT/collectives.dat"
    echo
    echo "Copy bounds measured before each rank count (two threads, GB/s):"
    echo
    echo "| ranks | memcpy | streaming |"
    echo "|---:|---:|---:|"
    awk '{ printf "| %d | %s | %s |\n", $1, $2, $3 }' "$OUT/bounds.dat"
    echo
    echo "## Modelled time of each algorithm"
    echo
    echo "\`hcemu-model-table\`: the built-in collectives at 8 ranks with \`HCEMU_TIME=model\`, every"
    echo "algorithm chosen with \`HCEMU_ALGO\`, one call between two events. These figures come from"
    echo "the cost model ([MODEL.md](../MODEL.md)), not from this machine: the same on any machine."
    echo
    echo "![modelled time per algorithm](model.svg)"
    echo
    echo '```'
    cat "$OUT/model.txt"
    echo '```'
    echo
    echo "## Data plane, launch, start-up"
    echo
    echo '```'
    cat "$OUT/dataplane.txt" "$OUT/launch.txt" "$OUT/startup.txt"
    echo '```'
} >"$OUT/report.md"

# README.md: the summary between the markers, so the front page shows the latest run.
{
    cat "$OUT/summary.md"
    echo
    printf 'Machine: %s' "$machine"
    [ -z "$shared" ] || printf ': a shared machine, so the times are pessimistic'
    echo "."
} >"$TMP/summary"
if [ -n "$README" ] && grep -q '^<!-- bench-report summary -->$' "$README"; then
    awk -v f="$TMP/summary" '
        /^<!-- bench-report summary -->$/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
        /^<!-- \/bench-report summary -->$/ { skip = 0 }
        !skip' "$README" >"$TMP/readme" && cat "$TMP/readme" >"$README"
fi
echo "bench/report.sh: wrote $OUT/report.md, time.svg, busbw.svg, model.svg"
