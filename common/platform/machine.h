/* machine.h - what this machine's wall clock makes an algorithm cost: the figures the built-in
 * collectives' wall-clock cost model (host/coll/coll_cost.c) is calibrated with.
 *
 * Every rank of a job must choose the same algorithm, so every rank must hold the same figures.
 * They come, in this order, from HCEMU_MACHINE ("copy=GB/s,handoff=us,cores=N,cache=MiB", set
 * by hand or exported by hcemu-run to its ranks), else from a per-user cache file measured once per
 * machine (emu_machine_cache_path), which processes starting together create under a lock, so
 * they all read one measurement. */
#ifndef HCEMU_COMMON_PLATFORM_MACHINE_H
#define HCEMU_COMMON_PLATFORM_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_machine {
    double copy_gbps;  /* one core's memcpy rate on 1 MiB blocks, GB/s (= bytes per ns) */
    double handoff_us; /* one cross-thread futex hand-off: half a ping-pong, microseconds */
    uint32_t cores;    /* cores this process may run on */
    /* The last-level cache a collective can count on, MiB; 0 = unknown. What the CPU reports,
     * or less where the cache file's measurement found less (emu_cache_probe_mib). A
     * collective whose buffers fit in three quarters of it keeps its transfers cached
     * (coll_plan.c, "cached transfers"). */
    uint32_t cache_mib;
};

/* Where the figures came from. */
enum emu_machine_source {
    EMU_MACHINE_SETTING,  /* HCEMU_MACHINE */
    EMU_MACHINE_CACHE,    /* the cache file, measured before */
    EMU_MACHINE_MEASURED, /* measured now, and written to the cache for the others */
    EMU_MACHINE_ALONE,    /* no cache: measured by this process only */
    EMU_MACHINE_CARD,     /* HCEMU_MACHINE=card: no figures, keep the card's rule */
};

/* "copy=12.5,handoff=4.2,cores=2,cache=32" -> *m; false (and *m untouched) unless the first
 * three are there and all are within bounds (copy 0.01-10000 GB/s, handoff 0.01-100000 us,
 * cores 1-4096, cache 0-1048576 MiB); without `cache` it is 0 (unknown). */
bool emu_machine_parse(const char *s, struct emu_machine *m);
/* The same text, for HCEMU_MACHINE and the cache file. */
void emu_machine_format(const struct emu_machine *m, char *out, size_t len);
/* Measures this machine: a few milliseconds (at most ~50 ms on a loaded machine). The cache
 * figure is what the CPU reports. */
void emu_machine_measure(struct emu_machine *m);
/* The cache figure measured (cache_probe.c): the footprint from which a collective's copies
 * run faster bypassing the cache, x 4/3, at most `reported_mib`; `reported_mib` when the
 * probe finds none up to twice it (at most 512 MiB and a quarter of the free memory) or
 * cannot run. 0.1-0.5 s, so only the cache file's measurement, once per machine, takes it. */
uint32_t emu_cache_probe_mib(uint32_t reported_mib);
/* The cache file's path: $XDG_CACHE_HOME/hcemu/machine, else $HOME/.cache/hcemu/machine;
 * false when neither variable gives an absolute path. */
bool emu_machine_cache_path(char *out, size_t len);
/* The figures of this process (once; later calls return the same): HCEMU_MACHINE, else the
 * cache file (read, or measured and written under its lock), else measured here alone. */
const char *emu_machine_source_name(enum emu_machine_source s);
void emu_machine_get(struct emu_machine *m, enum emu_machine_source *src);

#endif
