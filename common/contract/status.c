/* status.c - tables behind status.h, generated from EMU_STATUS_MAP. */
#include "status.h"

struct status_row {
    const char *name;
    const char *msg;
    int acl;
    int hccl;
    int usage;
};

static const struct status_row rows[] = {
#define EMU_STATUS_ROW(name, msg, acl, hccl, usage) {#name, msg, acl, hccl, usage},
    EMU_STATUS_MAP(EMU_STATUS_ROW)
#undef EMU_STATUS_ROW
};

static const struct status_row *row(emu_status st)
{
    if ((unsigned)st >= EMU_STATUS_COUNT)
        return &rows[EMU_EINTERNAL];
    return &rows[st];
}

const char *emu_status_str(emu_status st)
{
    return row(st)->msg;
}

const char *emu_status_name(emu_status st)
{
    return row(st)->name;
}

int emu_status_to_acl(emu_status st)
{
    return row(st)->acl;
}

int emu_status_to_hccl(emu_status st)
{
    return row(st)->hccl;
}

int emu_status_is_usage(emu_status st)
{
    return row(st)->usage;
}
