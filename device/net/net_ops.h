/* net_ops.h - the table through which the executor calls its transport to other hosts when
 * that transport is a plug-in loaded on first use (net_lazy.c loads libhcemu_net_ucx.so,
 * net_ucx.c fills the table). Each entry has the contract of its net.h namesake. */
#ifndef HCEMU_DEVICE_NET_OPS_H
#define HCEMU_DEVICE_NET_OPS_H

#include "net.h"

/* Bumped whenever the table or a contract changes: a plug-in of another build found on the
 * library path is refused instead of called with the wrong layout. */
#define EMU_NET_OPS_VERSION 4u
#define EMU_NET_PLUGIN "libhcemu_net_ucx.so"
#define EMU_NET_OPS_SYMBOL "emu_net_ucx_ops"

struct emu_net_ops {
    uint32_t version;
    emu_status (*address)(const struct emu_net_job *job, uint8_t *buf, size_t cap,
                          uint32_t *len, char *msg, size_t msg_len);
    emu_status (*connect)(uint32_t peer, const uint8_t *addr, uint32_t len,
                          const uint8_t *token, char *msg, size_t msg_len);
    emu_status (*check)(uint32_t channel, uint32_t peer, char *why, size_t len);
    emu_status (*flush)(uint32_t channel, uint32_t peer, uint32_t timeout_s, char *why,
                        size_t len);
    enum emu_run_result (*run)(struct emu_task *t);
    void (*hang_ask)(uint32_t peer);
    void (*stop)(void);
};

#endif
