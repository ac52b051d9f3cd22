/* run_machine.c - hcemu-run: the machine's figures for the collectives' wall-clock cost model
 * (common/platform/machine.h, host/coll/coll_cost.c). */
#include "run_machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/contract/settings.h"
#include "common/platform/copy.h"
#include "common/platform/machine.h"
#include "host/coll/coll_cost.h"

void run_machine_export(bool multihost)
{
    struct emu_machine m;
    char text[128];

    if (multihost || emu_settings_enum(EMU_SET_TIME) == 1 ||
        *emu_settings_str(EMU_SET_MACHINE) != '\0')
        return;
    emu_machine_get(&m, NULL);
    emu_machine_format(&m, text, sizeof(text));
    setenv("HCEMU_MACHINE", text, 1);
}

/* The eager slot of the default HCCL buffer (host/coll/coll_launch.c: an eighth of the
 * buffer over 2n slots, at most 1 MiB at 2 ranks and 64 KiB otherwise, none past 64 ranks)
 * and the slot (at most 4 MiB). */
static void slots(uint32_t n, uint64_t *eager, uint64_t *slot)
{
    uint64_t buf = emu_settings_u64(EMU_SET_HCCL_BUFFSIZE) << 20;
    uint64_t e = buf / (16ull * n) / HCOLL_ALIGN * HCOLL_ALIGN, cap = n == 2 ? 1u << 20 : 64u << 10;

    e = n > 64 ? 0 : e < cap ? e : cap;
    uint64_t s = (buf - 2ull * n * e) / n / HCOLL_ALIGN * HCOLL_ALIGN;
    *eager = e;
    *slot = s < (4u << 20) ? s : 4u << 20;
}

static const struct {
    enum emu_coll_kind kind;
    const char *name;
} kinds[] = {{EMU_COLL_ALLREDUCE, "allreduce"},
             {EMU_COLL_ALLGATHER, "allgather"},
             {EMU_COLL_BROADCAST, "broadcast"},
             {EMU_COLL_REDUCE_SCATTER, "reducescatter"}};

/* The shape a call of `kind`, n ranks and `bytes` has with the default HCCL buffer. */
static struct emu_coll_shape shape_of(enum emu_coll_kind kind, uint32_t n, uint64_t bytes)
{
    uint64_t eager, slot;
    bool red = kind != EMU_COLL_ALLGATHER && kind != EMU_COLL_BROADCAST;

    slots(n, &eager, &slot);
    return (struct emu_coll_shape){
        .kind = kind,
        .n = n,
        .bytes = bytes,
        .eager = eager,
        .chunk = red ? emu_coll_reduce_chunk(slot, emu_copy_stream_min()) : slot,
        .direct = emu_settings_u64(EMU_SET_DIRECT_KB) << 10,
        .spread = emu_settings_u64(EMU_SET_DIRECT_KB) != 0}; /* one server: every peer */
}

int run_machine_print(void)
{
    struct emu_machine m;
    enum emu_machine_source src;
    char text[128], path[4096];

    emu_machine_get(&m, &src);
    emu_machine_format(&m, text, sizeof(text));
    printf("HCEMU_MACHINE=%s\n", text);
    printf("# from: %s", emu_machine_source_name(src));
    if (src != EMU_MACHINE_SETTING && src != EMU_MACHINE_CARD &&
        emu_machine_cache_path(path, sizeof(path)))
        printf(" (%s/machine)", path);
    printf("\n# default algorithm on the wall clock, one server (HCEMU_TIME=model keeps the card's"
           " rule; HCEMU_ALGO forces one)\n%-14s %5s", "operator", "ranks");
    for (uint64_t b = 1024; b <= (256ull << 20); b *= 2) /* the cliff sweep's sizes */
        printf(" %6llu%c", (unsigned long long)(b >= (1u << 20) ? b >> 20 : b >> 10),
               b >= (1u << 20) ? 'M' : 'K');
    printf("\n");
    for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        for (uint32_t n = 2; n <= 16; n *= 2) {
            printf("%-14s %5u", kinds[k].name, n);
            for (uint64_t b = 1024; b <= (256ull << 20); b *= 2) {
                struct emu_coll_shape s = shape_of(kinds[k].kind, n, b);
                printf(" %7s", emu_coll_algo_name(emu_coll_default_pick(
                                   &s, false, src == EMU_MACHINE_CARD ? NULL : &m)));
            }
            printf("\n");
        }
    return 0;
}

/* "OPERATOR:RANKS:SIZE" (SIZE in bytes, or with K, M or G) into its parts; false if it is not. */
static bool parse_call(const char *call, enum emu_coll_kind *kind, uint32_t *n, uint64_t *bytes)
{
    char name[32], unit[2] = "";
    unsigned long ranks;
    unsigned long long size;
    int used = 0;

    if (sscanf(call, "%31[a-z]:%lu:%llu%n%1[KMG]%n", name, &ranks, &size, &used, unit, &used) < 3 ||
        call[used] != '\0' || ranks < 2 || ranks > HCOLL_MAX_RANKS || size == 0 ||
        size > (1ull << 40))
        return false;
    *n = (uint32_t)ranks;
    *bytes = size << (unit[0] == 'K' ? 10 : unit[0] == 'M' ? 20 : unit[0] == 'G' ? 30 : 0);
    for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (strcmp(name, kinds[k].name) == 0) {
            *kind = kinds[k].kind;
            return true;
        }
    return false;
}

int run_machine_costs(const char *call)
{
    enum emu_coll_kind kind;
    struct emu_machine m;
    uint32_t n;
    uint64_t bytes;

    if (!parse_call(call, &kind, &n, &bytes)) {
        fprintf(stderr, "hcemu-run: --machine-cost %s: expected OPERATOR:RANKS:SIZE, e.g. "
                        "allreduce:8:128K (allreduce, allgather, broadcast, reducescatter; "
                        "2..%u ranks)\n", call, HCOLL_MAX_RANKS);
        return 2;
    }
    emu_machine_get(&m, NULL);
    struct emu_coll_shape s = shape_of(kind, n, bytes);
    for (int a = EMU_ALGO_DEFAULT + 1; a < EMU_ALGO_COUNT; a++) {
        double us = emu_coll_wall_cost(&s, (enum emu_coll_algo)a, &m);
        if (us >= 0)
            printf("%s %.1f\n", emu_coll_algo_name((enum emu_coll_algo)a), us);
    }
    return 0;
}
