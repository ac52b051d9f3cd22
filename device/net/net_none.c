/* net_none.c - the transport of an hcemu built without UCX: no peer of another host is
 * reachable (net.h). */
#include <stdio.h>

#include "device/exec.h"
#include "net.h"

static const char why[] = "hcemu was built without UCX (libucx-dev): ranks of other hosts are "
                          "unreachable";

emu_status emu_net_address(const struct emu_net_job *job, uint8_t *buf, size_t cap,
                           uint32_t *len, char *msg, size_t msg_len)
{
    (void)job;
    (void)buf;
    (void)cap;
    *len = 0;
    snprintf(msg, msg_len, "%s", why);
    return EMU_ENOTSUP;
}

emu_status emu_net_connect(uint32_t peer, const uint8_t *addr, uint32_t len,
                           const uint8_t *token, char *msg, size_t msg_len)
{
    (void)token;
    (void)peer;
    (void)addr;
    (void)len;
    snprintf(msg, msg_len, "%s", why);
    return EMU_ENOTSUP;
}

emu_status emu_net_check(uint32_t channel, uint32_t peer, char *out, size_t len)
{
    (void)channel;
    (void)peer;
    snprintf(out, len, "%s", why);
    return EMU_EREMOTE;
}

emu_status emu_net_flush(uint32_t channel, uint32_t peer, uint32_t timeout_s, char *out,
                         size_t len)
{
    (void)timeout_s;
    return emu_net_check(channel, peer, out, len); /* the same refusal */
}

enum emu_run_result emu_net_run(struct emu_task *t)
{
    snprintf(t->note, sizeof(t->note), "%s", why);
    t->status = EMU_ENOTSUP;
    return EMU_RUN_FAIL;
}

void emu_net_hang_ask(uint32_t peer)
{
    (void)peer;
}

void emu_net_stop(void)
{
}
