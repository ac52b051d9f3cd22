/* server.c - the executor's socket: host processes connect to dev<N>.sock, keep the
 * connection open while they use the device, and send the few requests that need an answer.
 * The executor ends when its last client hangs up or its process is gone (a pidfd per client,
 * from SO_PEERCRED: a host's socket may live on in a child it forked), so a host that dies
 * (even by SIGKILL) never leaves an executor behind. */
#include "server.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/wire.h"
#include "exec.h"
#include "device/kernel/fault.h"
#include "device/kernel/kernel.h"
#include "device/net/net.h"

#define MAX_CLIENTS 256
#define FIRST_CLIENT_MS 10000 /* an executor nobody connects to ends by itself */

static void handle(const struct emu_rpc_req *q, struct emu_rpc_rep *r)
{
    struct emu_devmap *m;

    memset(r, 0, sizeof(*r));
    switch (q->op) {
    case EMU_RPC_HELLO:
        r->val0 = (uint32_t)getpid();
        r->status = EMU_OK;
        return;
    case EMU_RPC_LOAD_IMAGE:
        r->status = emu_kernel_load(q->text, &r->val0, r->msg, sizeof(r->msg));
        return;
    case EMU_RPC_RESOLVE:
        r->status = emu_kernel_resolve(q->arg0, q->text, &r->val0);
        return;
    case EMU_RPC_UNLOAD_IMAGE:
        r->status = emu_kernel_unload(q->arg0);
        return;
    case EMU_RPC_MAP_PEER:
        r->status = emu_devmem_peer(q->text, q->arg0, &m);
        if (r->status != EMU_OK)
            snprintf(r->msg, sizeof(r->msg), "%s", emu_status_str((emu_status)r->status));
        return;
    case EMU_RPC_NET_ADDR: {
        struct emu_net_job job;
        memcpy(&job, q->text, sizeof(job));
        r->status = emu_net_address(&job, (uint8_t *)r->msg, sizeof(r->msg), &r->val0, r->msg,
                                    sizeof(r->msg));
        return;
    }
    case EMU_RPC_NET_CONNECT:
        r->status = emu_net_connect(q->arg0, (const uint8_t *)q->text,
                                    q->arg1 <= EMU_NET_ADDR_MAX ? (uint32_t)q->arg1 : 0,
                                    (const uint8_t *)q->text + EMU_NET_ADDR_MAX, r->msg,
                                    sizeof(r->msg));
        return;
    case EMU_RPC_POPULATE: {
        void *p = emu_devmem_ptr(q->arg1, 0, q->arg2);
        r->status = p == NULL ? EMU_EINVAL : emu_os_populate(p, q->arg2);
        return;
    }
    default:
        r->status = EMU_EINVAL;
        snprintf(r->msg, sizeof(r->msg), "unknown request %u", q->op);
        return;
    }
}

emu_status emu_server_listen(const char *path, int *fd_out)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return EMU_ESYSCALL;
    if (snprintf(a.sun_path, sizeof(a.sun_path), "%s", path) >= (int)sizeof(a.sun_path)) {
        EMU_LOG_ERR("socket path %s is too long; set HCEMU_JOB_DIR to a shorter folder", path);
        close(fd);
        return EMU_EINVAL;
    }
    unlink(path);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0) {
        EMU_LOG_ERR("cannot listen on %s: %s", path, strerror(errno));
        close(fd);
        return EMU_ESYSCALL;
    }
    *fd_out = fd;
    return EMU_OK;
}

/* A pidfd of the process at the other end of socket `c` (polls readable when it exits), or -1
 * when the kernel cannot tell (the socket hang-up still ends the client). */
static int peer_pidfd(int c)
{
    struct ucred cr;
    socklen_t len = sizeof(cr);

    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.pid <= 0)
        return -1;
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, cr.pid, 0);
#else
    return -1;
#endif
}

/* Client k uses pf[2 + 2k] (its socket) and pf[3 + 2k] (its process). */
static void drop_client(struct pollfd *pf, int *nfd, int i)
{
    close(pf[i].fd);
    if (pf[i + 1].fd >= 0)
        close(pf[i + 1].fd);
    *nfd -= 2;
    pf[i] = pf[*nfd];
    pf[i + 1] = pf[*nfd + 1];
}

void emu_server_run(int lfd)
{
    struct pollfd pf[2 * MAX_CLIENTS + 2];
    int nfd = 2;
    int served = 0;
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    /* A kernel that closes these leaves a poll() in progress blind (closing a descriptor
     * does not wake it): it is caught when it returns (fault.c), or by the next poll(),
     * which finds the descriptor invalid. */
    emu_fault_watch_fd(lfd);
    emu_fault_watch_fd(sfd);
    pf[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
    pf[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
    for (;;) {
        int rc = poll(pf, (nfds_t)nfd, served ? -1 : FIRST_CLIENT_MS);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0) {
            EMU_LOG_INFO("no host connected; stopping");
            break;
        }
        for (int i = 0; i < nfd; i++)
            if (pf[i].revents & POLLNVAL)
                emu_fault_fds_invalid();
        if (pf[1].revents & POLLIN)
            break;
        if ((pf[0].revents & POLLIN) && nfd < 2 * MAX_CLIENTS + 2) {
            int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0) {
                pf[nfd++] = (struct pollfd){.fd = c, .events = POLLIN};
                pf[nfd++] = (struct pollfd){.fd = peer_pidfd(c), .events = POLLIN};
                served = 1;
            }
        }
        for (int i = 2; i < nfd; i += 2) {
            if (pf[i + 1].revents != 0) { /* the client's process is gone */
                drop_client(pf, &nfd, i);
                i -= 2;
                continue;
            }
            if (pf[i].revents == 0)
                continue;
            struct emu_rpc_req q;
            struct emu_rpc_rep r;
            ssize_t n = recv(pf[i].fd, &q, sizeof(q), 0);
            if (n == (ssize_t)sizeof(q)) {
                q.text[sizeof(q.text) - 1] = '\0';
                handle(&q, &r);
                ssize_t ignored = send(pf[i].fd, &r, sizeof(r), MSG_NOSIGNAL);
                (void)ignored;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            drop_client(pf, &nfd, i);
            i -= 2;
        }
        if (served && nfd == 2)
            break;
    }
    emu_fault_unwatch_fds();
    for (int i = 2; i < nfd; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);
    if (sfd >= 0)
        close(sfd);
}
