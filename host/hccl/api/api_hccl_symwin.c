/* api_hccl_symwin.c - the boundary of symmetric windows (hcomm 9.2): register, deregister
 * and look up on the host; hccl_sym_win.c does the work. The device-side peer-pointer calls
 * are the executor's (device/dp/api_hccl_device.c). Windows exist on the 950 and A3.
 * See docs/CONTROL_PLANE.md §9. */
#include <hccl/hccl.h>

#include "hccl/hccl_sym_win.h"
#include "host/hccl/hccl.h"
#include "host/hccl/hccl_rules.h"
#include "host/hccl/hccl_sym_win.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

#define SYMWIN_PRODUCTS (EMU_ON_950 | EMU_ON_A3)

HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                  HcclCommSymWindow *winHandle, uint32_t flag)
{
    static const char fn[] = "HcclCommSymWinRegister";
    struct emu_comm *c;
    emu_status s;

    if (winHandle != NULL)
        *winHandle = NULL;
    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, SYMWIN_PRODUCTS)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, addr, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, winHandle, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (flag != 1)
        s = emu_hccl_bad(c, fn, "flag %u is not 1 (the only value: enable the window)", flag);
    else if (size == 0)
        s = emu_hccl_bad(c, fn, "size is 0");
    else
        s = emu_symwin_register(c, (uint64_t)(uintptr_t)addr, size, winHandle, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle)
{
    static const char fn[] = "HcclCommSymWinDeregister";
    emu_status s;

    if ((s = emu_rules_call(fn, UINT32_MAX, SYMWIN_PRODUCTS)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, winHandle, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    return emu_hccl_leave(NULL, emu_symwin_deregister(winHandle, fn));
}

/* HCCL asks this before every operator to choose its path: a range in no window (and every
 * range on a product without windows) is HCCL_E_NOT_FOUND without a line. */
HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
                             size_t *offset)
{
    static const char fn[] = "HcclCommSymWinGet";
    struct emu_comm *c;
    uint64_t off = 0;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, winHandle, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, offset, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    *winHandle = NULL;
    *offset = 0;
    if (size == 0)
        s = emu_hccl_bad(c, fn, "size is 0");
    else if (ptr == NULL || !emu_rules_has(SYMWIN_PRODUCTS))
        s = EMU_ENOTFOUND;
    else if ((s = emu_symwin_find(c, (uint64_t)(uintptr_t)ptr, size, winHandle, &off)) == EMU_OK)
        *offset = (size_t)off;
    return emu_hccl_leave(c, s);
}

/* The vendor answers this on the device only: a kernel's call reaches the executor. */
HcclResult HcclSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset, uint32_t peerRank,
                                    void **ptr)
{
    (void)winHandle, (void)offset, (void)peerRank;
    if (ptr != NULL)
        *ptr = NULL;
    EMU_LOG_ERR("HcclSymWinGetPeerPointer is a device-side call: make it in a kernel, where "
                "hcemu's executor answers it");
    return HCCL_E_NOT_SUPPORT;
}

#pragma GCC visibility pop
