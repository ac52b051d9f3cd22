/* mpi_coll.c - the OpenMPI baseline of bench/collectives.sh: MPI_Allreduce (fp32 sum) and
 * MPI_Allgather at the sizes of the hccl_test sweep (1 KiB, x4, up to maxbytes), timed the
 * way the tools time (a barrier, then the iterations after the warm-up). Compiled by the
 * script with mpicc when OpenMPI is installed; never part of the CMake build.
 * Usage: mpirun -n N mpi_coll MAXBYTES ITERS WARMUP [SMALLMAX SMALLITERS SMALLWARMUP [FACTOR
 * [MINBYTES]]]
 * (sizes up to SMALLMAX: SMALLITERS timed calls after SMALLWARMUP, as collectives.sh runs them;
 * above it ITERS, or more for sizes below 16 MiB: big_iters)
 * (sizes step by FACTOR, default 4, from MINBYTES, default 1 KiB: versus.sh times one size,
 * which need not be 1 KiB times a power of 4)
 * Prints on rank 0: "allreduce|allgather BYTES MICROSECONDS" per size, where BYTES is what
 * hccl_test reports as data_size (allgather: the gathered output). */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static double time_one(int op, long bytes, int n, int iters, int warmup, float *a, float *b)
{
    int cnt = (int)(op == 0 ? bytes / 4 : bytes / 4 / n);
    double t0 = 0;

    for (int i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (op == 0)
            MPI_Allreduce(a, b, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Allgather(a, cnt, MPI_FLOAT, b, cnt, MPI_FLOAT, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) * 1e6 / iters;
}

/* Timed calls of a size above SMALLMAX: ITERS, and at least ITERS x 16 MiB of data, so that
 * a 4 MiB row is no 20-call loop of 5 ms (collectives.sh, big_iters, counts alike). */
static int big_iters(int iters, long bytes)
{
    long floor = (long)iters * (16l << 20) / bytes;

    return floor > iters ? (int)floor : iters;
}

int main(int argc, char **argv)
{
    int me, n;

    if (argc != 4 && argc != 7 && argc != 8 && argc != 9) {
        fprintf(stderr, "usage: mpi_coll MAXBYTES ITERS WARMUP [SMALLMAX SMALLITERS SMALLWARMUP "
                        "[FACTOR [MINBYTES]]]\n");
        return 2;
    }
    bool per_size = argc >= 7; /* the collectives.sh form: iterations per size class */
    long factor = argc >= 8 ? atol(argv[7]) : 4;
    long minb = argc == 9 ? atol(argv[8]) : 1024;
    long maxb = atol(argv[1]), small_max = per_size ? atol(argv[4]) : 0;
    int iters = atoi(argv[2]), warmup = atoi(argv[3]);
    int small_iters = per_size ? atoi(argv[5]) : iters;
    int small_warmup = per_size ? atoi(argv[6]) : warmup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    float *a = calloc((size_t)maxb / 4 + 1, 4), *b = calloc((size_t)maxb / 4 + 1, 4);
    if (a == NULL || b == NULL || iters < 1 || warmup < 0 || small_iters < 1 || small_warmup < 0 ||
        factor < 2 || minb < 4)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* Written before any call, as hccl_test fills its device buffers: calloc's pages are
     * mapped to the kernel's one zero page until written, and a collective reading its input
     * from there reads a single 4 KiB page out of L1 (a 2-rank 16 MiB allgather took 840 us
     * from it, 1100 from an input of its own). */
    for (long i = 0; i <= maxb / 4; i++) {
        a[i] = (float)(me + 1 + (i & 255));
        b[i] = 0;
    }
    for (int op = 0; op < 2; op++)
        for (long bytes = minb; bytes <= maxb; bytes *= factor) {
            bool small = bytes <= small_max;
            /* The 3-argument form times every size ITERS times, as before. */
            int it = small ? small_iters : per_size ? big_iters(iters, bytes) : iters;
            double us = time_one(op, bytes, n, it, small ? small_warmup : warmup, a, b);
            if (me == 0) { /* flushed: a sweep stopped by a time limit keeps its rows */
                printf("%s %ld %.2f\n", op == 0 ? "allreduce" : "allgather", bytes, us);
                fflush(stdout);
            }
        }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
