#!/bin/sh
# collectives.sh - the collective table of `make bench`: all_reduce_test and all_gather_test
# (ranks as processes under hcemu-run) at 2, 4 and 8 ranks from 1 KiB to 64 MiB, against the
# copy limit of this machine (coll_copy_bound: two threads' memcpy rate, divided by the rank
# count, since every emulated device shares the same two cores) and, when OpenMPI's mpicc and
# mpirun are installed, against MPI_Allreduce / MPI_Allgather measured in the same run.
# Usage: bench/collectives.sh [build-dir]   (ITERS, WARMUP, MAXB, RANKS override the sweep)
set -eu
BUILD=${1:-build}
BIN=$BUILD/bin
ITERS=${ITERS:-5}
WARMUP=${WARMUP:-2}
MAXB=${MAXB:-64M}
RANKS=${RANKS:-"2 4 8"}
TMP=$(mktemp -d /tmp/hcemu-collbench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM

copy=$("$BIN/coll_copy_bound")
echo "copy limit: two threads' memcpy at $copy GB/s; bound per rank count n = that / n"

# Optional MPI baseline: a tiny program compiled here, never part of the build.
mpi=""
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    cat >"$TMP/mpi_coll.c" <<'CEOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int me, n, iters = atoi(argv[2]), warm = atoi(argv[3]);
    long maxb = atol(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    float *a = calloc(maxb / 4 + 1, 4), *b = calloc(maxb / 4 + 1, 4);
    for (int op = 0; op < 2; op++)
        for (long bytes = 1024; bytes <= maxb; bytes *= 4) {
            int cnt = (int)(op == 0 ? bytes / 4 : bytes / 4 / n);
            double t0 = 0;
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
                if (op == 0) MPI_Allreduce(a, b, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                else MPI_Allgather(a, cnt, MPI_FLOAT, b, cnt, MPI_FLOAT, MPI_COMM_WORLD);
            }
            double us = (MPI_Wtime() - t0) * 1e6 / iters;
            if (me == 0) printf("%s %ld %.2f\n", op == 0 ? "allreduce" : "allgather", bytes, us);
        }
    MPI_Finalize();
    return 0;
}
CEOF
    if mpicc -O2 -o "$TMP/mpi_coll" "$TMP/mpi_coll.c" 2>/dev/null; then
        mpi=yes
    fi
fi
[ -n "$mpi" ] || echo "OpenMPI (mpicc, mpirun) not installed: no MPI column"

maxbytes=$(echo "$MAXB" | sed 's/K$/*1024/;s/M$/*1048576/;s/G$/*1073741824/' | bc)
printf '\n%-10s %5s %10s %12s %11s %10s %8s %12s %9s\n' collective ranks bytes hcemu_us \
    busbw_GB/s bound_GB/s of_bound mpi_us hcemu/mpi
for n in $RANKS; do
    : >"$TMP/mpi.txt"
    if [ -n "$mpi" ]; then
        mpirun --oversubscribe -n "$n" "$TMP/mpi_coll" "$maxbytes" "$ITERS" "$WARMUP" \
            >"$TMP/mpi.txt" 2>/dev/null || : >"$TMP/mpi.txt"
    fi
    for tool in all_reduce_test all_gather_test; do
        name=$(echo $tool | sed 's/_test$//;s/_//')
        "$BIN/hcemu-run" -n "$n" -- "$BIN/$tool" -b 1K -e "$MAXB" -f 4 -n "$ITERS" \
            -w "$WARMUP" -c 0 -B 1 >"$TMP/out.txt" 2>&1 || true
        grep -E '^\[rank 0\] [0-9]+ +\|' "$TMP/out.txt" | sed 's/^\[rank 0\] //' |
        while IFS='|' read -r bytes us alg bus res; do
            bytes=$(echo $bytes); us=$(echo $us); bus=$(echo $bus)
            m=$(awk -v o="$name" -v b="$bytes" '$1 == o && $2 == b { print $3 }' "$TMP/mpi.txt")
            awk -v c="$name" -v n="$n" -v b="$bytes" -v us="$us" -v bus="$bus" -v cp="$copy" \
                -v m="${m:-}" 'BEGIN {
                    bound = cp / n;
                    printf("%-10s %5d %10d %12.1f %11.4f %10.3f %8.3f ", c, n, b, us, bus, bound,
                           (bound > 0 ? bus / bound : 0));
                    if (m != "") printf "%12.1f %9.2f\n", m, us / m; else printf "%12s %9s\n", "-", "-";
                }'
        done
    done
done
