/* fuzz_loader.c - libFuzzer target over the loader's input path: the same bytes go to the
 * descriptor parser and to the ELF inspector (+ the import policy verdict), as
 * aclrtBinaryLoadFromFile/FromData would give them. Built and run by scripts/fuzz only.
 * Any status is fine; a crash, a sanitizer report or a leak is a bug. */
#include <stddef.h>
#include <stdint.h>

#include "loader/descriptor.h"
#include "loader/elf.h"
#include "loader/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct emu_descriptor d;
    struct emu_elf_info info;
    const char *entries[4] = {"loader_ok_entry", "f"};
    size_t n = 2;
    char why[256];

    if (emu_descriptor_parse((const char *)data, size, "fuzz.json", "/fuzz", &d) == EMU_OK) {
        for (size_t i = 0; i < d.n_entries && n < 4; i++)
            entries[n++] = d.entries[i].function_name;
    }
    if (emu_elf_inspect_mem(data, size, "fuzz.so", &info) == EMU_OK) {
        /* Also check the image's own first export, so the "found" branch is reached. */
        if (info.n_exports > 0 && n < 4)
            entries[n++] = info.exports[0].name;
        /* Any verdict will do; a refusal always says why. */
        if (emu_import_check_image(&info, entries, n, why, sizeof(why)) != EMU_OK && why[0] == '\0')
            __builtin_trap();
        emu_elf_info_fini(&info);
    }
    emu_descriptor_fini(&d);
    return 0;
}
