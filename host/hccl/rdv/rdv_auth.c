/* rdv_auth.c - proofs of the job's key (rdv_auth.h), with nettle's HMAC-SHA256. */
#include "rdv_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "common/platform/log.h"
#include "common/contract/settings.h"

/* A fixed key for the derived one: it only separates this use from any other HMAC. */
static const uint8_t LOOPBACK_LABEL[] = "hcemu insecure loopback key";

emu_status emu_rdv_key_load(uint32_t root_ip, const char *job_id, uint8_t *key)
{
    char why[200];

    if (emu_settings_is_set(EMU_SET_KEY)) {
        const char *t = emu_settings_str(EMU_SET_KEY);
        if (emu_job_key_parse(t, strlen(t), key, why, sizeof(why)) == EMU_OK)
            return EMU_OK;
        EMU_LOG_ERR("HCEMU_KEY is not a key: %s (make one with hcemu-run --make-key FILE)", why);
        return EMU_EINVAL;
    }
    if (emu_settings_is_set(EMU_SET_KEY_FILE)) {
        const char *f = emu_settings_str(EMU_SET_KEY_FILE);
        if (emu_job_key_read_file(f, key, why, sizeof(why)) == EMU_OK)
            return EMU_OK;
        EMU_LOG_ERR("HCEMU_KEY_FILE=%s: %s", f, why);
        return EMU_EINVAL;
    }
    bool loopback = (ntohl(root_ip) >> 24) == 127;
    if (emu_settings_bool(EMU_SET_INSECURE_LOOPBACK) && loopback) {
        struct hmac_sha256_ctx h;
        hmac_sha256_set_key(&h, sizeof(LOOPBACK_LABEL), LOOPBACK_LABEL);
        hmac_sha256_update(&h, strlen(job_id), (const uint8_t *)job_id);
        hmac_sha256_digest(&h, EMU_JOB_KEY_BYTES, key);
        EMU_LOG_WARN("HCEMU_INSECURE_LOOPBACK: the rendezvous key is derived from the job's "
                     "name; every user of this machine can join or disturb this job");
        return EMU_OK;
    }
    EMU_LOG_ERR("HCEMU_ROOT is set but the job has no key: set HCEMU_KEY_FILE (hcemu-run "
                "--key-file FILE; make one with hcemu-run --make-key FILE) or HCEMU_KEY on every "
                "host%s", loopback ? ", or, for a job on this machine only, "
                                     "HCEMU_INSECURE_LOOPBACK=1 (hcemu-run --insecure-loopback)"
                                   : "");
    return EMU_EINVAL;
}

bool emu_rdv_nonce(uint8_t *out)
{
    if (getrandom(out, EMU_RDV_NONCE_BYTES, 0) == (ssize_t)EMU_RDV_NONCE_BYTES)
        return true;
    EMU_LOG_ERR("rendezvous: no random bytes from the kernel for a nonce: %s", strerror(errno));
    return false;
}

void emu_rdv_proof(const uint8_t *key, const char *label, const uint8_t *nonce_a,
                   const uint8_t *nonce_b, const void *extra, size_t extra_len, uint8_t *out)
{
    struct hmac_sha256_ctx h;

    hmac_sha256_set_key(&h, EMU_JOB_KEY_BYTES, key);
    hmac_sha256_update(&h, strlen(label) + 1, (const uint8_t *)label);
    hmac_sha256_update(&h, EMU_RDV_NONCE_BYTES, nonce_a);
    hmac_sha256_update(&h, EMU_RDV_NONCE_BYTES, nonce_b);
    if (extra_len != 0)
        hmac_sha256_update(&h, extra_len, extra);
    hmac_sha256_digest(&h, EMU_RDV_PROOF_BYTES, out);
}

bool emu_rdv_proof_equal(const uint8_t *a, const uint8_t *b)
{
    return memeql_sec(a, b, EMU_RDV_PROOF_BYTES) != 0;
}

void emu_rdv_net_token(const uint8_t *key, uint8_t *out)
{
    static const uint8_t zero[EMU_RDV_NONCE_BYTES];
    uint8_t full[EMU_RDV_PROOF_BYTES];

    emu_rdv_proof(key, "hcemu executor admission", zero, zero, NULL, 0, full);
    memcpy(out, full, EMU_NET_TOKEN_BYTES);
}
