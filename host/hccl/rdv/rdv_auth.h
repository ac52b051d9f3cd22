/* rdv_auth.h - who may use the root's rendezvous listener, and the executors' UCX endpoints:
 * whoever proves it holds the job's key (common/contract/job_key.h).
 *
 * The proof is a challenge-response over two fresh nonces from the kernel's random source,
 * one chosen by each side, with HMAC-SHA256 (nettle): the listener proves the key first
 * (so a rank never hands its rows to an impostor), then the rank, its proof also covering
 * who it says it is. A captured exchange is useless later: the other side's nonce is new each
 * time. The key never travels. */
#ifndef HCEMU_HOST_HCCL_RDV_AUTH_H
#define HCEMU_HOST_HCCL_RDV_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/job_key.h"
#include "common/contract/status.h"
#include "common/contract/wire.h" /* EMU_NET_TOKEN_BYTES */

#define EMU_RDV_NONCE_BYTES 32u
#define EMU_RDV_PROOF_BYTES 32u

/* The key of a launched job whose root listens at `root_ip` (HCEMU_ROOT): HCEMU_KEY, else
 * the file HCEMU_KEY_FILE. Neither: with HCEMU_INSECURE_LOOPBACK and a 127.x root, a key
 * derived from `job_id` (anyone on this machine can derive it: one warning says so);
 * otherwise EMU_EINVAL with one line saying how to give one. */
emu_status emu_rdv_key_load(uint32_t root_ip, const char *job_id, uint8_t *key) EMU_MUST_CHECK;
/* A fresh nonce from getrandom; false (after one line) when the kernel gives none. */
bool emu_rdv_nonce(uint8_t *out);
/* HMAC-SHA256 under `key` of the label, the two nonces and `extra` (may be NULL, 0). */
void emu_rdv_proof(const uint8_t *key, const char *label, const uint8_t *nonce_a,
                   const uint8_t *nonce_b, const void *extra, size_t extra_len, uint8_t *out);
/* Equality of two proofs in constant time. */
bool emu_rdv_proof_equal(const uint8_t *a, const uint8_t *b);
/* What an executor's UCX messages of this job carry to be admitted by another host's
 * executor: derived from the key (HMAC with its own label), never the key itself. */
void emu_rdv_net_token(const uint8_t *key, uint8_t *out);

#endif
