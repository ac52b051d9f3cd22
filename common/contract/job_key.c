/* job_key.c - reading and making a job's key (job_key.h). */
#include "job_key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

emu_status emu_job_key_parse(const char *text, size_t len, uint8_t *key, char *why,
                             size_t why_len)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    while (len > 0 && (*text == ' ' || *text == '\t')) {
        text++;
        len--;
    }
    if (len != EMU_JOB_KEY_HEX) {
        snprintf(why, why_len, "a key is %u hex digits (%u random bytes), not %zu characters",
                 EMU_JOB_KEY_HEX, EMU_JOB_KEY_BYTES, len);
        return EMU_EINVAL;
    }
    for (uint32_t i = 0; i < EMU_JOB_KEY_BYTES; i++) {
        int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            snprintf(why, why_len, "a key is %u hex digits; character %u is not one",
                     EMU_JOB_KEY_HEX, hi < 0 ? 2 * i + 1 : 2 * i + 2);
            return EMU_EINVAL;
        }
        key[i] = (uint8_t)(hi << 4 | lo);
    }
    return EMU_OK;
}

emu_status emu_job_key_read_file(const char *path, uint8_t *key, char *why, size_t why_len)
{
    char text[EMU_JOB_KEY_HEX + 8];
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

    if (fd < 0) {
        snprintf(why, why_len, "cannot open it: %s%s", strerror(errno),
                 errno == ELOOP ? " (a symlink is refused)" : "");
        return EMU_EFILE;
    }
    const char *bad = fstat(fd, &st) != 0         ? "it cannot be checked"
                      : !S_ISREG(st.st_mode)      ? "it is not a regular file"
                      : st.st_uid != geteuid()    ? "it belongs to another user"
                      : (st.st_mode & 077) != 0   ? "others may read it (chmod 600 it)"
                                                  : NULL;
    if (bad != NULL) {
        snprintf(why, why_len, "%s", bad);
        close(fd);
        return EMU_EFILE;
    }
    ssize_t n = read(fd, text, sizeof(text));
    close(fd);
    if (n < 0) {
        snprintf(why, why_len, "cannot read it: %s", strerror(errno));
        return EMU_EFILE;
    }
    emu_status s = emu_job_key_parse(text, (size_t)n, key, why, why_len);
    memset(text, 0, sizeof(text));
    return s;
}

emu_status emu_job_key_make_file(const char *path, char *why, size_t why_len)
{
    static const char digits[] = "0123456789abcdef";
    uint8_t key[EMU_JOB_KEY_BYTES];
    char text[EMU_JOB_KEY_HEX + 1];

    if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
        snprintf(why, why_len, "no random bytes from the kernel: %s", strerror(errno));
        return EMU_ESYSCALL;
    }
    for (uint32_t i = 0; i < EMU_JOB_KEY_BYTES; i++) {
        text[2 * i] = digits[key[i] >> 4];
        text[2 * i + 1] = digits[key[i] & 15];
    }
    text[EMU_JOB_KEY_HEX] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, text, sizeof(text)) == (ssize_t)sizeof(text);
    if (!ok)
        snprintf(why, why_len, "cannot create it: %s%s", strerror(errno),
                 errno == EEXIST ? " (an existing file is never overwritten)" : "");
    if (fd >= 0 && (close(fd) != 0 || !ok)) {
        unlink(path);
        ok = false;
    }
    memset(key, 0, sizeof(key));
    memset(text, 0, sizeof(text));
    return ok ? EMU_OK : EMU_EFILE;
}
