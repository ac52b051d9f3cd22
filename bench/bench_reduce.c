/* bench_reduce.c - throughput of emu_reduce() (fp32, fp16, bf16, int32 SUM) against memcpy of
 * the same byte count, both measured in this run on the same pre-faulted buffers, for sizes
 * 4 KiB ... 256 MiB. Reduce GB/s counts the bytes of dst; the ratio is reduce / memcpy.
 * Usage: bench_reduce [--quick] [--isa generic|sse2|avx2|avx512|auto] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/os.h"
#include "device/reduce/reduce.h"

struct config {
    size_t max_size;
    uint64_t min_ns; /* per timed run */
    int runs;        /* best of */
};

/* One measured operation: memcpy (data_type < 0) or a SUM reduce of that type. */
struct job {
    const char *name;
    int data_type;
    uint32_t one; /* the type's 1.0 (or 1), repeated to fill src */
};

static const struct job jobs[] = {
    {"memcpy", -1, 0},
    {"fp32", EMU_DTYPE_FP32, 0x3f800000u},
    {"fp16", EMU_DTYPE_FP16, 0x3c00u},
    {"bf16", EMU_DTYPE_BFP16, 0x3f80u},
    {"int32", EMU_DTYPE_INT32, 1u},
};
#define JOB_COUNT (sizeof(jobs) / sizeof(jobs[0]))

static void fill_src(unsigned char *src, size_t size, const struct job *j)
{
    size_t es = emu_reduce_dtype_size(j->data_type);

    for (size_t off = 0; off + es <= size; off += es)
        memcpy(src + off, &j->one, es); /* little-endian: the low bytes are the value */
}

static void run_once(const struct job *j, unsigned char *dst, const unsigned char *src,
                     size_t size)
{
    if (j->data_type < 0)
        memcpy(dst, src, size);
    else
        emu_reduce(dst, src, size / emu_reduce_dtype_size(j->data_type), j->data_type,
                   EMU_REDUCE_OP_SUM);
}

/* Best GB/s of cfg->runs runs, each repeating the job for at least cfg->min_ns. */
static double measure(const struct config *cfg, const struct job *j, unsigned char *dst,
                      const unsigned char *src, size_t size)
{
    double best = 0;

    run_once(j, dst, src, size); /* warm the caches and the TLB */
    for (int r = 0; r < cfg->runs; r++) {
        uint64_t iters = 0, t0 = emu_os_now_ns(), t;
        do {
            run_once(j, dst, src, size);
            iters++;
            t = emu_os_now_ns();
        } while (t - t0 < cfg->min_ns);
        double gbs = (double)size * (double)iters / (double)(t - t0);
        if (gbs > best)
            best = gbs;
    }
    return best;
}

static void print_size(size_t size)
{
    if (size >= (1u << 20))
        printf("%6zu MiB", size >> 20);
    else
        printf("%6zu KiB", size >> 10);
}

static int parse_args(int argc, char **argv, struct config *cfg)
{
    *cfg = (struct config){.max_size = (size_t)256 << 20, .min_ns = 50000000, .runs = 3};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            cfg->max_size = (size_t)16 << 20;
            cfg->min_ns = 10000000;
            cfg->runs = 2;
        } else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
            emu_status st = emu_reduce_select_isa(argv[++i]);
            if (st != EMU_OK) {
                fprintf(stderr, "bench_reduce: --isa %s: %s\n", argv[i], emu_status_str(st));
                return -1;
            }
        } else {
            fprintf(stderr, "usage: %s [--quick] [--isa generic|sse2|avx2|avx512|auto]\n",
                    argv[0]);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct config cfg;

    if (parse_args(argc, argv, &cfg) != 0)
        return 2;
    unsigned char *dst = aligned_alloc(4096, cfg.max_size);
    unsigned char *src = aligned_alloc(4096, cfg.max_size);
    if (dst == NULL || src == NULL) {
        fprintf(stderr, "bench_reduce: cannot allocate 2 x %zu bytes\n", cfg.max_size);
        return 1;
    }
    /* Pre-fault every page so no measurement pays for first touch. */
    memset(dst, 0, cfg.max_size);
    memset(src, 0, cfg.max_size);

    printf("emu_reduce SUM vs memcpy, kernels: %s, best of %d runs of >= %llu ms\n",
           emu_reduce_isa_name(), cfg.runs, (unsigned long long)(cfg.min_ns / 1000000));
    printf("%10s %8s", "size", "memcpy");
    for (size_t k = 1; k < JOB_COUNT; k++)
        printf(" %8s %5s", jobs[k].name, "ratio");
    printf("   (GB/s of dst bytes)\n");

    for (size_t size = 4096; size <= cfg.max_size; size *= 4) {
        double base = measure(&cfg, &jobs[0], dst, src, size);
        print_size(size);
        printf(" %8.2f", base);
        for (size_t k = 1; k < JOB_COUNT; k++) {
            fill_src(src, size, &jobs[k]);
            memset(dst, 0, size);
            double gbs = measure(&cfg, &jobs[k], dst, src, size);
            printf(" %8.2f %5.2f", gbs, gbs / base);
        }
        printf("\n");
        fflush(stdout);
    }
    free(src);
    free(dst);
    return 0;
}
