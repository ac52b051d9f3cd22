/* host_id.c - see host_id.h. */
#include "host_id.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"

static struct emu_host_id self, split;
static uint64_t split_from; /* HCEMU_HOST_SPLIT; 0 = no second host */
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

uint64_t emu_host_key_of(const char *boot_id, uint64_t netns_ino, uint64_t shm_dev,
                         uint64_t shm_ino, const char *host_setting)
{
    uint64_t h = 0xcbf29ce484222325ull;

    h = fnv(h, boot_id, strlen(boot_id) + 1);
    h = fnv(h, &netns_ino, sizeof(netns_ino));
    h = fnv(h, &shm_dev, sizeof(shm_dev));
    h = fnv(h, &shm_ino, sizeof(shm_ino));
    h = fnv(h, host_setting, strlen(host_setting) + 1);
    return h != 0 ? h : 1;
}

/* The kernel's boot id: one per boot of one machine (containers of one kernel share it, which
 * is why the namespaces are hashed too). "" when /proc is not mounted. */
static void boot_id(char *out, size_t len)
{
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

    if (fd >= 0)
        close(fd);
    out[n > 0 ? n : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
}

static void compute(void)
{
    char boot[64];
    struct stat net = {0}, shm = {0};
    const char *setting = emu_settings_str(EMU_SET_HOST_NAME);

    boot_id(boot, sizeof(boot));
    if (stat("/proc/self/ns/net", &net) != 0)
        net.st_ino = 0;
    if (stat("/dev/shm", &shm) != 0)
        shm.st_dev = shm.st_ino = 0;
    self.key = emu_host_key_of(boot, (uint64_t)net.st_ino, (uint64_t)shm.st_dev,
                               (uint64_t)shm.st_ino, setting);
    if (*setting != '\0') {
        snprintf(self.name, sizeof(self.name), "%s", setting);
        return;
    }
    if (gethostname(self.name, sizeof(self.name)) != 0 || self.name[0] == '\0')
        snprintf(self.name, sizeof(self.name), "localhost");
    self.name[sizeof(self.name) - 1] = '\0';
}

static void compute_all(void)
{
    compute();
    split_from = emu_settings_u64(EMU_SET_HOST_SPLIT);
    split.key = emu_host_key_of("split", self.key, 0, 0, "split");
    snprintf(split.name, sizeof(split.name), "%.*s+split", (int)sizeof(split.name) - 7, self.name);
}

const struct emu_host_id *emu_host_self(void)
{
    pthread_once(&self_once, compute_all);
    return &self;
}

bool emu_host_is_mine(uint64_t key)
{
    return key == 0 || key == emu_host_self()->key;
}

const struct emu_host_id *emu_host_of_device(uint32_t dev)
{
    const struct emu_host_id *me = emu_host_self();

    return split_from != 0 && dev >= split_from ? &split : me;
}

bool emu_host_is_devices(uint32_t dev, uint64_t key)
{
    return key == 0 || key == emu_host_of_device(dev)->key;
}

uint64_t emu_folder_key(uint64_t host_key, const char *job_dir)
{
    uint64_t h = fnv(0xcbf29ce484222325ull, &host_key, sizeof(host_key));

    h = fnv(h, job_dir, strlen(job_dir) + 1);
    return h != 0 ? h : 1;
}
