/* api.c - see api.h. */
#include "api.h"

static _Thread_local int last_error;

int emu_api_acl(emu_status s)
{
    int e = emu_status_to_acl(s);

    if (e != 0)
        last_error = e;
    return e;
}

int emu_api_hccl(emu_status s)
{
    return emu_status_to_hccl(s);
}

int emu_api_last_error(int reset)
{
    int e = last_error;

    if (reset)
        last_error = 0;
    return e;
}
