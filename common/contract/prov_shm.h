/* prov_shm.h - the last-writer record of HCEMU_PROVENANCE=1: `prov.shm` in the job folder.
 *
 * Every executor of the job maps it (the first creates it, O_EXCL, mode 0600). An executor
 * that runs a data-plane transfer or reduction appends one entry to the ring of the device
 * that OWNS the destination memory: where, how long, which task (device-wide number, kind),
 * which rank and thread, and the source line of the call that submitted it. The host library
 * reads the rings (read-only) when hcemuProvenanceCheck names who last wrote a wrong range.
 * A ring keeps the EMU_PROV_RING newest writes into its device; the file is sparse, so only
 * the rings of written devices cost memory (EMU_PROV_RING * 256 B each). */
#ifndef HCEMU_COMMON_PROV_SHM_H
#define HCEMU_COMMON_PROV_SHM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

#define EMU_PROV_MAGIC 0x31564f5250554d45ull /* "EMUPROV1" */
#define EMU_PROV_RING 2048u
#define EMU_PROV_FILE "prov.shm"

/* One write. `stamp` is its position in the ring's sequence plus one, stored last (release)
 * and cleared first while an entry is rewritten: a reader keeps an entry only when it reads
 * the same non-zero stamp before and after copying it. */
struct emu_prov_write {
    _Atomic uint64_t stamp;
    uint64_t addr, len; /* destination, device address */
    uint64_t seq;       /* the task's device-wide submission number on its device */
    uint32_t rank;      /* communicator rank of the writing thread (UINT32_MAX: none) */
    uint32_t thread;    /* its thread index in that rank */
    uint32_t tdev;      /* the device whose stream ran the task */
    uint32_t reserved;
    char kind[32];      /* "HcommWriteOnThread", ... */
    char label[40];     /* the thread's label */
    char site[136];     /* "function (file.c:line)" of the submitting call */
};
_Static_assert(sizeof(struct emu_prov_write) == 256, "one entry is 256 bytes");

struct emu_prov_ring {
    _Atomic uint64_t next; /* writes appended so far */
    uint64_t pad[7];
    struct emu_prov_write w[EMU_PROV_RING];
};

struct emu_prov_shm {
    uint64_t magic; /* set last by the creator (release; common/contract/job_shm.h) */
    uint64_t pad[7];
    struct emu_prov_ring dev[EMU_MAX_DEVICES];
};

/* The newest write into device `dev` that covers address `addr` and was appended after the
 * ring held `after` writes; false when there is none. */
bool emu_prov_last_writer(const struct emu_prov_shm *m, uint32_t dev, uint64_t addr,
                          uint64_t after, struct emu_prov_write *out);

#endif
