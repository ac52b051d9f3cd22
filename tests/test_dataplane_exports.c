/* test_dataplane_exports.c - hcemu-device exports every device API name kernels may import
 * (loader/device_api_names.h) as a defined, global, default-visibility function, so a kernel
 * the loader accepts always binds when the executor dlopens it. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader/device_api_names.h"

#define NAME(n) #n,
static const char *const names[] = {EMU_DEVICE_API_NAMES(NAME)};

static int exported(Elf *e, const char *want)
{
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNSYM)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        for (size_t i = 0; d != NULL && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            if (gelf_getsym(d, (int)i, &s) == NULL)
                continue;
            const char *n = elf_strptr(e, sh.sh_link, s.st_name);
            if (n != NULL && strcmp(n, want) == 0)
                return s.st_shndx != SHN_UNDEF && GELF_ST_BIND(s.st_info) == STB_GLOBAL &&
                       GELF_ST_TYPE(s.st_info) == STT_FUNC &&
                       GELF_ST_VISIBILITY(s.st_other) == STV_DEFAULT;
        }
    }
    return 0;
}

static void executor_exports_every_device_api_name(void **state)
{
    (void)state;
    assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
    int fd = open(HCEMU_DEVICE_BIN, O_RDONLY);
    assert_true(fd >= 0);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(e);
    assert_int_equal(sizeof(names) / sizeof(names[0]), 71); /* 42 Hcomm, 19 HCCL 9.2, 10 own */
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!exported(e, names[i]))
            fail_msg("hcemu-device does not export %s", names[i]);
    elf_end(e);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(executor_exports_every_device_api_name)};
    return cmocka_run_group_tests_name("dataplane_exports", tests, NULL, NULL);
}
