/* server.h - the executor's control socket (see server.c). */
#ifndef HCEMU_DEVICE_SERVER_H
#define HCEMU_DEVICE_SERVER_H

#include "common/contract/status.h"

emu_status emu_server_listen(const char *path, int *fd_out) EMU_MUST_CHECK;
/* Serve until the last client disconnects or SIGTERM/SIGINT/SIGHUP arrives. Main thread. */
void emu_server_run(int listen_fd);

#endif
