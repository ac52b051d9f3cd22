/* symwin_params.h - what test_sym_win and its kernel symwin_put share: the packed argument
 * block and the index of each result in the int64_t output array. */
#ifndef HCEMU_TESTS_SYMWIN_PARAMS_H
#define HCEMU_TESTS_SYMWIN_PARAMS_H

#include <stdint.h>

#define SW_WAIT_S 20u

struct __attribute__((packed)) symwin_args {
    uint64_t win;     /* HcclCommSymWindow of the window on this rank */
    uint64_t bogus;   /* a live device address that is no window */
    uint64_t thread;  /* AICPU_TS thread */
    uint64_t ch_next; /* channel to (rank + 1) % n: the bytes go there */
    uint64_t ch_prev; /* channel to (rank - 1) % n: its bytes come from there */
    uint64_t src;     /* `len` bytes of this device */
    uint64_t len;
    uint64_t offset;   /* where they land in the next rank's window */
    uint64_t win_size; /* bytes of the window */
    uint64_t out;      /* int64_t[SW_COUNT] of this device */
    uint64_t dst;      /* `len` bytes of this device: read from the next rank's window tail */
    uint32_t rank;
    uint32_t rank_size;
};

enum {
    SW_PEER_RC,  /* HcclSymWinGetPeerPointer(win, offset, next) */
    SW_PEER_PTR, /* ... its pointer */
    SW_HCOMM_RC, /* HcommSymWinGetPeerPointer, the same question */
    SW_HCOMM_PTR,
    SW_SELF_PTR,  /* HcclSymWinGetPeerPointer(win, 0, rank) */
    SW_RANK_RC,   /* peerRank == rank size */
    SW_RANK_NULL, /* ... left *ptr NULL */
    SW_OFF_RC,    /* offset == window size */
    SW_OFF_NULL,
    SW_BOGUS_RC, /* a handle that is no window */
    SW_BOGUS_NULL,
    SW_NULL_RC,     /* a NULL handle */
    SW_WRITE_RC,    /* HcommWriteOnThread into the next rank's copy */
    SW_STRADDLE_RC, /* a write across the end of that copy */
    SW_READ_RC,     /* HcommReadOnThread of the last `len` bytes of that copy */
    SW_RECORD_RC,
    SW_WAIT_RC,
    SW_DRAIN_RC,
    SW_COUNT
};

#endif
