/* rdvnet_wire.h - the rendezvous protocol between a rank of another host and the root's
 * listener (hccl_rdvnet.c: the rank's side; hccl_rdvlisten.c: the listener's).
 *
 *   rank     -> listener  net_hello      {magic, version, layout, rank nonce}
 *   listener -> rank      net_challenge  {magic, status, listener nonce, listener proof}
 *   rank     -> listener  net_proof      {rank proof, who: communicator, rank, host, folder}
 *   listener -> rank      uint32_t       NET_SERVED, or NET_REFUSED and the connection closes
 *   then, repeatedly:
 *   rank     -> listener  net_req_hdr + that rank's rows     (emu_rdv_encode)
 *   listener -> rank      net_req_hdr + every rank's rows
 *
 * Proofs (rdv_auth.h): the listener's covers both nonces under label "listener", the rank's
 * both nonces (the other way round) and `who` under label "rank". A connection serves the
 * one rank and communicator its proof named, with requests no larger than that
 * communicator's rows of one rank. */
#ifndef HCEMU_HOST_HCCL_RDVNET_WIRE_H
#define HCEMU_HOST_HCCL_RDVNET_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/contract/host_id.h"
#include "hccl_rdv.h"
#include "rdv_auth.h"

#define NET_MAGIC 0x3354454e4d454348ull /* "HCEMNET3" */
#define NET_VERSION 3u
#define NET_IO_LIMIT_S 10     /* a rank's socket reads and writes; a request's transfer */
#define NET_HELLO_LIMIT_MS 1000 /* each step of the greeting, at the listener */

enum { NET_CH_OK = 0, NET_CH_BUSY = 1 }; /* challenge status: busy = try again shortly */
enum { NET_REFUSED = 0, NET_SERVED = 1, NET_FULL = 2 }; /* answer to the proof */

struct net_hello {
    uint64_t magic;
    uint32_t version;
    uint32_t layout; /* sizeof of the shared records: both ends must be the same build */
    uint8_t nonce[EMU_RDV_NONCE_BYTES];
};

struct net_challenge {
    uint64_t magic;
    uint32_t status;
    uint32_t reserved;
    uint8_t nonce[EMU_RDV_NONCE_BYTES];
    uint8_t proof[EMU_RDV_PROOF_BYTES];
};

/* Who the connection serves: the listener names a rank that dies before its first row by it
 * (hccl_rdv.h, emu_rdv_mark_lost). */
struct net_who {
    uint64_t comm; /* the communicator's nonce: its rendezvous file */
    uint32_t nranks, rank;
    char host[EMU_HOST_NAME_MAX];
    char job_dir[EMU_PATH_MAX];
};

struct net_proof {
    uint8_t proof[EMU_RDV_PROOF_BYTES];
    struct net_who who;
};

struct net_req_hdr {
    uint64_t magic;
    uint64_t comm;
    uint32_t nranks, rank;
    uint64_t len;
};

/* Grow *buf (realloc, doubling from 4 KiB) to hold `need` bytes; false when out of memory. */
static inline bool net_grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t n = *cap > 4096 ? *cap : 4096;
    while (n < need)
        n *= 2;
    uint8_t *p = realloc(*buf, n);
    if (p == NULL)
        return false;
    *buf = p;
    *cap = n;
    return true;
}

static inline uint32_t net_layout_word(void)
{
    return (uint32_t)(sizeof(struct emu_rank_info) * 7u + sizeof(struct emu_rdv_offer));
}

#endif
