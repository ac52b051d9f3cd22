/* api_hcomm_res.c - the HCOMM base-layer resource calls of hcomm_res.h.
 *
 * HcommThreadResGetInfo is emulated: HCCL's own collectives call it to find the stream behind
 * the CPU_TS thread they order their launches on, for instance when that stream is being
 * captured into an ACL graph. A thread handle names its device but not its communicator, so
 * the live communicators of the process are searched. The endpoint, memory-registration and
 * communicator-less thread calls are HCOMM's own channel layer, below the HCCL control plane
 * hcemu emulates: each returns HCCL_E_NOT_SUPPORT with one line naming itself. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/platform/log.h"
#include "hccl/hccl_res.h"
#include "hcomm/hcomm_res.h"
#include "host/acl/api.h"
#include "host/hccl/hccl_comm.h"
#include "host/hccl/hccl_thread.h"

#pragma GCC visibility push(default)

static HcommResult not_emulated(const char *fn)
{
    EMU_LOG_ERR("%s is not supported by hcemu: HCOMM's own endpoints, memory registration and "
                "communicator-less threads are not emulated (use the HcclChannel*, "
                "HcclCommMemReg and HcclThreadAcquire calls of the HCCL control plane)",
                fn);
    return emu_api_hccl(EMU_ENOTSUP);
}

HcommResult HcommThreadResGetInfo(ThreadHandle thread, ThreadResType resType, uint32_t infoLen,
                                  void **info)
{
    static const char fn[] = "HcommThreadResGetInfo";
    emu_status s = EMU_ENOTFOUND;

    if (info == NULL || thread == 0) {
        EMU_LOG_ERR("%s: %s", fn, info == NULL ? "info is NULL" : "thread is 0");
        return emu_api_hccl(EMU_ENULL);
    }
    if (resType != THREAD_RES_TYPE_STREAM) {
        EMU_LOG_ERR("%s: resType %d: only THREAD_RES_TYPE_STREAM is supported", fn, (int)resType);
        return emu_api_hccl(EMU_ENOTSUP);
    }
    if (infoLen != sizeof(ThreadResTypeStream)) {
        EMU_LOG_ERR("%s: infoLen %u is not sizeof(ThreadResTypeStream) = %zu", fn, infoLen,
                    sizeof(ThreadResTypeStream));
        return emu_api_hccl(EMU_EINVAL);
    }
    for (struct emu_comm *c = emu_comm_next(NULL); c != NULL; c = emu_comm_next(c)) {
        pthread_mutex_lock(&c->lock);
        s = emu_thread_stream_find(c, thread, info);
        pthread_mutex_unlock(&c->lock);
        if (s != EMU_ENOTFOUND) {
            emu_comm_put(c);
            break;
        }
    }
    if (s == EMU_ENOTFOUND)
        EMU_LOG_ERR("%s: thread 0x%llx is not a thread of any live communicator", fn,
                    (unsigned long long)thread);
    else if (s == EMU_ENOTSUP)
        EMU_LOG_ERR("%s: thread 0x%llx is an AICPU_TS thread: its stream runs on the device and "
                    "has no aclrtStream",
                    fn, (unsigned long long)thread);
    return emu_api_hccl(s);
}

HcommResult HcommEndpointCreate(const EndpointDesc *endpoint, EndpointHandle *endpointHandle)
{
    (void)endpoint, (void)endpointHandle;
    return not_emulated("HcommEndpointCreate");
}

HcommResult HcommEndpointDestroy(EndpointHandle endpointHandle)
{
    (void)endpointHandle;
    return not_emulated("HcommEndpointDestroy");
}

HcommResult HcommEndpointGetDescNum(int32_t deviceLogicId, uint32_t *descNum)
{
    (void)deviceLogicId, (void)descNum;
    return not_emulated("HcommEndpointGetDescNum");
}

HcommResult HcommEndpointGetDescs(int32_t deviceLogicId, uint32_t *descNum,
                                  EndpointDesc *endpointDescs)
{
    (void)deviceLogicId, (void)descNum, (void)endpointDescs;
    return not_emulated("HcommEndpointGetDescs");
}

HcommResult HcommMemReg(EndpointHandle endpointHandle, const char *memTag, const CommMem *mem,
                        HcommMemHandle *memHandle)
{
    (void)endpointHandle, (void)memTag, (void)mem, (void)memHandle;
    return not_emulated("HcommMemReg");
}

HcommResult HcommMemUnreg(EndpointHandle endpointHandle, HcommMemHandle memHandle)
{
    (void)endpointHandle, (void)memHandle;
    return not_emulated("HcommMemUnreg");
}

HcommResult HcommMemExport(EndpointHandle endpointHandle, HcommMemHandle memHandle, void **memDesc,
                           uint32_t *memDescLen)
{
    (void)endpointHandle, (void)memHandle, (void)memDesc, (void)memDescLen;
    return not_emulated("HcommMemExport");
}

HcommResult HcommMemImport(EndpointHandle endpointHandle, const void *memDesc, uint32_t descLen,
                           CommMem *outMem)
{
    (void)endpointHandle, (void)memDesc, (void)descLen, (void)outMem;
    return not_emulated("HcommMemImport");
}

HcommResult HcommMemUnimport(EndpointHandle endpointHandle, const void *memDesc, uint32_t descLen)
{
    (void)endpointHandle, (void)memDesc, (void)descLen;
    return not_emulated("HcommMemUnimport");
}

HcommResult HcommThreadAlloc(CommEngine engine, uint32_t threadNum,
                             const uint32_t *notifyNumPerThread, ThreadHandle *threads)
{
    (void)engine, (void)threadNum, (void)notifyNumPerThread, (void)threads;
    return not_emulated("HcommThreadAlloc");
}

HcommResult HcommThreadFree(const ThreadHandle *threads, uint32_t threadNum)
{
    (void)threads, (void)threadNum;
    return not_emulated("HcommThreadFree");
}

HcommResult HcommEndpointGetListenPort(EndpointHandle endpointHandle, uint32_t *port)
{
    (void)endpointHandle, (void)port;
    return not_emulated("HcommEndpointGetListenPort");
}

HcommResult HcommEndpointCheckFeature(HcommEndpointFeatureType featureType,
                                      const EndpointDesc *endpointDesc, bool *value)
{
    (void)featureType, (void)endpointDesc, (void)value;
    return not_emulated("HcommEndpointCheckFeature");
}

HcommResult HcommMemAlloc(void **ptr, size_t size)
{
    (void)ptr, (void)size;
    return not_emulated("HcommMemAlloc");
}

HcommResult HcommMemFree(void *ptr)
{
    (void)ptr;
    return not_emulated("HcommMemFree");
}

#pragma GCC visibility pop
