/* hccl_rdvnet.h - the rendezvous of a job spread over hosts: the root's process listens on
 * TCP (address from HCCL_IF_IP / HCCL_SOCKET_IFNAME or HCEMU_ROOT); a rank of another host
 * keeps a rendezvous file in its own job folder and exchanges rows with the root's file over
 * one connection. Only peers that prove they hold the job's key (rdv_auth.h) are served.
 * Every socket operation is bounded in time. */
#ifndef HCEMU_HOST_HCCL_RDVNET_H
#define HCEMU_HOST_HCCL_RDVNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_rdv.h"

struct emu_rdv;
struct emu_rdvnet;

/* Serve the rendezvous files of `dir` on ip:port (port 0: any; the port taken in *bound) to
 * ranks that prove they hold `key` (EMU_JOB_KEY_BYTES). One listener per process: a second
 * call with the same ip/port/key is a no-op. */
emu_status emu_rdvnet_listen(const char *dir, uint32_t ip, uint16_t port, const uint8_t *key,
                             uint16_t *bound) EMU_MUST_CHECK;
/* Whether this process is the listener at ip:port (then its ranks use the file directly). */
bool emu_rdvnet_is_listener(uint32_t ip, uint16_t port);
/* Who connects: the rank of communicator `nonce` (of `nranks`), its host's display name and
 * job folder (the listener names a rank that dies before its first row by them), and the
 * calling function for messages. */
struct emu_rdvnet_who {
    const char *fn;
    uint64_t nonce;
    uint32_t nranks, rank;
    const char *host, *job_dir;
};
/* Connect to the root's listener, retrying until `deadline` (ns, emu_os_now_ns()) while it
 * is not up yet or busy; both sides prove they hold `key`. */
emu_status emu_rdvnet_connect(uint32_t ip, uint16_t port, const uint8_t *key, uint64_t deadline,
                              const struct emu_rdvnet_who *me, struct emu_rdvnet **out) EMU_MUST_CHECK;
/* Push `rank`'s rows of `r` to the root and copy the other hosts' rows back into `r`.
 * `leaving`: the last push of a member that leaves; a failure is not reported. */
void emu_rdvnet_sync(struct emu_rdvnet *n, struct emu_rdv *r, uint64_t nonce, uint32_t nranks,
                     uint32_t rank, bool leaving);
/* The connection failed (the root's process is gone or stopped answering). */
bool emu_rdvnet_broken(const struct emu_rdvnet *n);
/* NULL ok. */
void emu_rdvnet_close(struct emu_rdvnet *n);
/* The three above, for emu_rdv_attach_net. */
extern const struct emu_rdv_link emu_rdvnet_link;

/* Resolve "HOST:PORT" (IPv4) into network-order address and host-order port. */
emu_status emu_rdvnet_parse_addr(const char *text, uint32_t *ip, uint16_t *port) EMU_MUST_CHECK;
/* The network interface this host's ranks reach the root's listener at ip:port through (the
 * one the job was given): HCCL_SOCKET_IFNAME when set, else the interface holding the local
 * address the kernel picks for that destination. "" when it cannot be told. */
void emu_rdvnet_ifname(uint32_t ip, uint16_t port, char *out, size_t len);
/* The address the root listens on from HCCL_IF_IP or HCCL_SOCKET_IFNAME; EMU_ENOTFOUND when
 * neither is set. */
emu_status emu_rdvnet_local_addr(uint32_t *ip) EMU_MUST_CHECK;

#endif
