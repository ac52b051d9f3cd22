/* hccl.c - see hccl.h. */
#include "hccl.h"

#include <stdarg.h>
#include <stdio.h>

#include "host/acl/device.h"

emu_status emu_hccl_enter_any(const void *comm, const char *fn, struct emu_comm **out)
{
    if (comm == NULL) {
        EMU_LOG_ERR("%s: comm is NULL", fn);
        return EMU_ENULL;
    }
    *out = emu_comm_get(comm, fn);
    return *out != NULL ? EMU_OK : EMU_EINVAL;
}

emu_status emu_hccl_enter(const void *comm, const char *fn, struct emu_comm **out)
{
    emu_status s = emu_hccl_enter_any(comm, fn, out);

    if (s != EMU_OK)
        return s;
    /* After aclFinalize (or an executor crash) the device's tables are gone; only
     * HcclCommDestroy may still run, to free the host side. */
    struct emu_hdev *d = (*out)->d;
    if (!d->open || d->ctl == NULL || d->failed) {
        EMU_LOG_ERR("%s: rank %u: device %u is closed or failed (aclFinalize before "
                    "HcclCommDestroy?)",
                    fn, (*out)->rank, d->id);
        emu_comm_put(*out);
        *out = NULL;
        return EMU_EDEVLOST;
    }
    return EMU_OK;
}

HcclResult emu_hccl_leave(struct emu_comm *c, emu_status s)
{
    if (c != NULL)
        emu_comm_put(c);
    return (HcclResult)emu_api_hccl(s);
}

emu_status emu_hccl_null(const struct emu_comm *c, const char *fn, const char *what)
{
    if (c != NULL)
        EMU_LOG_ERR("%s: rank %u: %s is NULL", fn, c->rank, what);
    else
        EMU_LOG_ERR("%s: %s is NULL", fn, what);
    return EMU_ENULL;
}

emu_status emu_hccl_bad(const struct emu_comm *c, const char *fn, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (c != NULL)
        EMU_LOG_ERR("%s: rank %u: %s", fn, c->rank, msg);
    else
        EMU_LOG_ERR("%s: %s", fn, msg);
    return EMU_EINVAL;
}

emu_status emu_hccl_need_device(const char *fn, uint32_t rank, struct emu_hdev **out)
{
    if (!emu_runtime_is_initialized()) {
        EMU_LOG_ERR("%s: rank %u: call aclInit first", fn, rank);
        return EMU_EUNINIT;
    }
    if (emu_runtime_current_device() < 0) {
        EMU_LOG_ERR("%s: rank %u: no device is set on this thread: call aclrtSetDevice first", fn,
                    rank);
        return EMU_ENODEVICE;
    }
    return emu_device_current(out);
}
