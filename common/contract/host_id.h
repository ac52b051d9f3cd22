/* host_id.h - which host a process is on. Ranks on one host reach each other's device memory
 * through shared memory (a peer's job folder); ranks on different hosts need the network.
 *
 * A host is identified by a key that differs between machines and between network or mount
 * namespaces of one machine: a hash of the kernel's boot id, the inode of this process's
 * network namespace and the device and inode of /dev/shm (a private /dev/shm is another host:
 * the peer's job folder is not visible there). HCEMU_HOST=<name> makes the process a host of
 * that name: its name is hashed into the key too, so two job folders of one machine with
 * different HCEMU_HOST values are different hosts (the setting that forces the network path
 * in tests). The display name is HCEMU_HOST, else the machine's hostname. */
#ifndef HCEMU_COMMON_HOST_ID_H
#define HCEMU_COMMON_HOST_ID_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_HOST_NAME_MAX 64u  /* display name, NUL included (longer names are cut) */
#define EMU_HOST_ADDR_MAX 448u /* an executor's network address in a rendezvous row */

struct emu_host_id {
    uint64_t key; /* never 0 */
    char name[EMU_HOST_NAME_MAX];
};

/* This process's host (computed once; HCEMU_HOST is read at the first call). In an executor
 * HCEMU_HOST is the value of the host process that started it (the settings block), so an
 * executor and its host agree. */
const struct emu_host_id *emu_host_self(void);

/* Whether `key` (another process's emu_host_self()->key) is this process's host. 0 (not
 * known: a row from a build without host identity) counts as this host. */
bool emu_host_is_mine(uint64_t key);

/* The host of device `dev` of this process: emu_host_self(), except under the test aid
 * HCEMU_HOST_SPLIT=N (N > 0), where devices N and above form a second host, "<name>+split",
 * so one process's ranks talk over the network path (tests of every primitive). */
const struct emu_host_id *emu_host_of_device(uint32_t dev);
/* Whether `key` is the host of this process's device `dev` (0 counts as yes). */
bool emu_host_is_devices(uint32_t dev, uint64_t key);

/* The key of a job folder of a job: its host's key and its path, hashed; never 0. The same for
 * every process of the folder, different for every folder of a job (the race detector's and
 * the modelled clock's files are per folder: messages between folders name them by it). */
uint64_t emu_folder_key(uint64_t host_key, const char *job_dir);

/* The key for a given boot id, namespace identity and HCEMU_HOST text (exposed for tests). */
uint64_t emu_host_key_of(const char *boot_id, uint64_t netns_ino, uint64_t shm_dev,
                         uint64_t shm_ino, const char *host_setting);

#endif
