/* api_acl.c - the ACL runtime boundary: validates arguments, calls the modules, converts
 * emu_status to aclError once on the way out and keeps the thread's last error. */
#include <acl/acl.h>

#include <string.h>

#include "api.h"
#include "common/platform/copy.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "acl_notify.h"
#include "device.h"
#include "event.h"
#include "acl_graph.h"
#include "mem.h"
#include "pin.h"
#include "retired.h"
#include "runtime.h"
#include "runtime_life.h"
#include "stream.h"

static aclError out(emu_status s)
{
    return emu_api_acl(s);
}

#define NULL_CHECK(p, fn)                                                                      \
    do {                                                                                       \
        if ((p) == NULL) {                                                                     \
            EMU_LOG_ERR("%s: %s is NULL", fn, #p);                                             \
            return out(EMU_EINVAL);                                                            \
        }                                                                                      \
    } while (0)

/* A release after aclFinalize of what aclFinalize released: the vendor's call succeeds then
 * (retired.h). */
#define RETIRED_OK(p, kind)                                                                    \
    do {                                                                                       \
        if (!emu_runtime_is_initialized() && emu_retired_take((p), (kind)))                    \
            return ACL_SUCCESS;                                                                \
    } while (0)

aclError aclInit(const char *configPath)
{
    (void)configPath; /* dump/profiling settings have no meaning here */
    emu_status s = emu_runtime_init();
    if (s != EMU_OK)
        return out(s);
    pthread_mutex_lock(&emu_rt.lock);
    uint32_t refs = emu_rt.init_refs++;
    pthread_mutex_unlock(&emu_rt.lock);
    if (refs == 0)
        emu_retired_clear();
    return refs == 0 ? ACL_SUCCESS : out(EMU_EREINIT);
}

aclError aclFinalize(void)
{
    pthread_mutex_lock(&emu_rt.lock);
    uint32_t refs = emu_rt.init_refs;
    emu_rt.init_refs = 0;
    pthread_mutex_unlock(&emu_rt.lock);
    if (refs == 0) {
        EMU_LOG_ERR("aclFinalize: the runtime is not initialised");
        return ACL_ERROR_REPEAT_FINALIZE;
    }
    emu_runtime_fini();
    return ACL_SUCCESS;
}

aclError aclFinalizeReference(uint64_t *refCount)
{
    NULL_CHECK(refCount, "aclFinalizeReference");
    pthread_mutex_lock(&emu_rt.lock);
    uint32_t refs = emu_rt.init_refs;
    if (refs > 0)
        emu_rt.init_refs--;
    pthread_mutex_unlock(&emu_rt.lock);
    if (refs == 0) {
        EMU_LOG_ERR("aclFinalizeReference: the runtime is not initialised");
        return ACL_ERROR_REPEAT_FINALIZE;
    }
    *refCount = refs - 1;
    if (refs == 1)
        emu_runtime_fini();
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
    NULL_CHECK(count, "aclrtGetDeviceCount");
    EMU_ACL_NEED_INIT("aclrtGetDeviceCount");
    *count = emu_rt.ndev;
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    struct emu_hdev *d;
    emu_status s;

    EMU_ACL_NEED_INIT("aclrtSetDevice");
    if (deviceId < 0 || (uint32_t)deviceId >= emu_rt.ndev) {
        EMU_LOG_ERR("aclrtSetDevice(%d): devices are 0..%u (HCEMU_DEVICES)", deviceId,
                    emu_rt.ndev - 1);
        return out(EMU_EDEVICE);
    }
    if ((s = emu_device_open((uint32_t)deviceId, &d)) != EMU_OK)
        return out(s);
    pthread_mutex_lock(&d->lock);
    d->set_refs++;
    pthread_mutex_unlock(&d->lock);
    if ((s = emu_stream_default_create(d)) != EMU_OK)
        return out(s);
    emu_runtime_set_current_device(deviceId);
    return ACL_SUCCESS;
}

/* Undoes one aclrtSetDevice, as the vendor runtime does whether or not ACL is initialised:
 * one of this run's, else one left over when aclFinalize closed the device (programs reset
 * after aclFinalize). With none outstanding the vendor answers "context release error". */
aclError aclrtResetDevice(int32_t deviceId)
{
    static const char fn[] = "aclrtResetDevice";
    uint32_t ndev = emu_rt.ndev != 0 ? emu_rt.ndev : EMU_MAX_DEVICES;

    if (deviceId < 0 || (uint32_t)deviceId >= ndev) {
        EMU_LOG_ERR("%s(%d): devices are 0..%u (HCEMU_DEVICES)", fn, deviceId, ndev - 1);
        return out(EMU_EDEVICE);
    }
    struct emu_hdev *d = &emu_rt.devs[deviceId];
    bool undone = false, last = false;
    pthread_mutex_lock(&emu_rt.lock);
    if (emu_rt.job_ready) {
        pthread_mutex_lock(&d->lock);
        if (d->set_refs > 0) {
            last = d->set_refs == 1;
            d->set_refs--;
            undone = true;
        }
        pthread_mutex_unlock(&d->lock);
    }
    if (!undone && emu_rt.left_refs[deviceId] > 0) {
        emu_rt.left_refs[deviceId]--;
        undone = true;
    }
    pthread_mutex_unlock(&emu_rt.lock);
    if (!undone) {
        EMU_LOG_ERR("%s(%d): device %d has not been set, or has already been reset", fn,
                    deviceId, deviceId);
        return out(EMU_ERESET);
    }
    if (last && d->open && !d->failed)
        emu_stream_drain_device(d); /* the last reset waits for outstanding work */
    if (emu_runtime_current_device() == deviceId)
        emu_runtime_set_current_device(-1);
    return ACL_SUCCESS;
}

aclError aclrtGetDevice(int32_t *deviceId)
{
    NULL_CHECK(deviceId, "aclrtGetDevice");
    EMU_ACL_NEED_INIT("aclrtGetDevice");
    int dev = emu_runtime_current_device();
    if (dev < 0) {
        EMU_LOG_ERR("aclrtGetDevice: no device is set on this thread");
        return out(EMU_ENODEVICE);
    }
    *deviceId = dev;
    return ACL_SUCCESS;
}

const char *aclrtGetSocName(void)
{
    if (emu_runtime_init() != EMU_OK)
        return NULL;
    return emu_rt.soc;
}

static emu_status check_policy(uint32_t policy, bool combined)
{
    uint32_t base = policy & 0xFFu;
    uint32_t flags = policy & ~0xFFu;
    uint32_t known = 0x0100u | 0x1000u | 0x100000u;

    if (base > 7 || (!combined && flags != 0) || (flags & ~known) != 0) {
        EMU_LOG_ERR("memory policy 0x%x is not valid here", policy);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

static aclError malloc_common(void **devPtr, size_t size, uint32_t policy, bool combined,
                              const char *fn)
{
    struct emu_hdev *d;
    emu_status s;

    NULL_CHECK(devPtr, fn);
    EMU_ACL_NEED_INIT(fn);
    if (size == 0) {
        EMU_LOG_ERR("%s: size is 0", fn);
        return out(EMU_EINVAL);
    }
    if ((s = check_policy(policy, combined)) != EMU_OK ||
        (s = emu_device_current(&d)) != EMU_OK || (s = emu_device_check_now(d)) != EMU_OK)
        return out(s);
    if (size > d->mem_size) {
        EMU_LOG_ERR("%s: %zu bytes is more than the device's %llu bytes (HCEMU_DEVICE_MEM_GB)",
                    fn, size, (unsigned long long)d->mem_size);
        return out(EMU_ENOMEM);
    }
    return out(emu_mem_alloc(d, size, EMU_ALLOC_USER, devPtr));
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    return malloc_common(devPtr, size, (uint32_t)policy, false, "aclrtMalloc");
}

aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                            aclrtMallocConfig *cfg)
{
    if (cfg != NULL && cfg->numAttrs > 0 && cfg->attrs == NULL) {
        EMU_LOG_ERR("aclrtMallocWithCfg: cfg has %zu attributes but no array", cfg->numAttrs);
        return out(EMU_EINVAL);
    }
    return malloc_common(devPtr, size, (uint32_t)policy, true, "aclrtMallocWithCfg");
}

aclError aclrtFree(void *devPtr)
{
    NULL_CHECK(devPtr, "aclrtFree");
    RETIRED_OK(devPtr, EMU_RETIRED_DEVICE_MEMORY);
    EMU_ACL_NEED_INIT("aclrtFree");
    return out(emu_mem_free(devPtr));
}

aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    NULL_CHECK(hostPtr, "aclrtMallocHost");
    EMU_ACL_NEED_INIT("aclrtMallocHost");
    if (size == 0) {
        EMU_LOG_ERR("aclrtMallocHost: size is 0");
        return out(EMU_EINVAL);
    }
    return out(emu_pin_alloc(size, hostPtr));
}

aclError aclrtFreeHost(void *hostPtr)
{
    NULL_CHECK(hostPtr, "aclrtFreeHost");
    RETIRED_OK(hostPtr, EMU_RETIRED_HOST_MEMORY);
    EMU_ACL_NEED_INIT("aclrtFreeHost");
    return out(emu_pin_free(hostPtr));
}

_Static_assert(ACL_MEMCPY_HOST_TO_HOST == 0 &&
                   ACL_MEMCPY_INTER_DEVICE_TO_DEVICE == EMU_COPY_KINDS - 1,
               "mem.c checks copy kinds against the vendor's range");

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind)
{
    struct emu_mem_ref d, s;

    EMU_ACL_NEED_INIT("aclrtMemcpy");
    emu_status st = emu_mem_check_copy(dst, destMax, src, count, (int)kind, "aclrtMemcpy", &d, &s);
    if (st != EMU_OK || (st = emu_aclgraph_check_mode("aclrtMemcpy")) != EMU_OK)
        return out(st);
    return out(emu_mem_copy(d.host, s.host, count, "aclrtMemcpy"));
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream)
{
    struct emu_mem_ref d, s;
    struct emu_hstream *hs;
    emu_status st;

    EMU_ACL_NEED_INIT("aclrtMemcpyAsync");
    if ((st = emu_mem_check_copy(dst, destMax, src, count, (int)kind, "aclrtMemcpyAsync", &d,
                                 &s)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &hs)) != EMU_OK)
        return out(st);
    if (d.dev < 0 && s.dev < 0) {
        /* The runtime's own code (207000), not the ACL-level "feature unsupported". */
        EMU_LOG_ERR("aclrtMemcpyAsync: host-to-host copies are not supported asynchronously");
        return out(EMU_ERTNOTSUP);
    }
    if ((d.dev < 0 && !d.pinned) || (s.dev < 0 && !s.pinned)) {
        if (emu_aclgraph_capturing(hs)) {
            EMU_LOG_ERR("aclrtMemcpyAsync: a capture takes copies of pinned host memory only "
                        "(aclrtMallocHost)");
            return out(EMU_EINVAL);
        }
        /* Pageable host memory: the copy happens before return, after earlier work. */
        if ((st = emu_stream_sync(hs, UINT64_MAX)) != EMU_OK)
            return out(st);
        return out(emu_mem_copy(d.host, s.host, count, "aclrtMemcpyAsync"));
    }
    struct emu_wire_task w;
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_COPY;
    w.callsite = EMU_CALLSITE();
    w.u.copy.dst = (struct emu_wire_addr){d.wire_addr, d.space, 0};
    w.u.copy.src = (struct emu_wire_addr){s.wire_addr, s.space, 0};
    w.u.copy.len = count;
    if ((st = emu_stream_submit(hs, &w)) != EMU_OK)
        return out(st);
    if (d.dev >= 0)
        emu_stream_note_use(hs, emu_window_base((uint32_t)d.dev) + d.rec.off);
    if (s.dev >= 0)
        emu_stream_note_use(hs, emu_window_base((uint32_t)s.dev) + s.rec.off);
    return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    struct emu_mem_ref r;

    EMU_ACL_NEED_INIT("aclrtMemset");
    emu_status st = emu_mem_check_memset(devPtr, maxCount, count, "aclrtMemset", &r);
    if (st != EMU_OK || (st = emu_aclgraph_check_mode("aclrtMemset")) != EMU_OK)
        return out(st);
    return out(emu_mem_set(r.host, (int)(uint8_t)value, count, "aclrtMemset"));
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream)
{
    struct emu_mem_ref r;
    struct emu_hstream *hs;
    emu_status st;

    EMU_ACL_NEED_INIT("aclrtMemsetAsync");
    if ((st = emu_mem_check_memset(devPtr, maxCount, count, "aclrtMemsetAsync", &r)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &hs)) != EMU_OK)
        return out(st);
    if (r.dev < 0) {
        if (emu_aclgraph_capturing(hs)) {
            EMU_LOG_ERR("aclrtMemsetAsync: a capture takes device memory only");
            return out(EMU_EINVAL);
        }
        if ((st = emu_stream_sync(hs, UINT64_MAX)) != EMU_OK)
            return out(st);
        memset(r.host, (int)(uint8_t)value, count);
        return ACL_SUCCESS;
    }
    struct emu_wire_task w;
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_MEMSET;
    w.callsite = EMU_CALLSITE();
    w.u.memset.dst = r.wire_addr;
    w.u.memset.len = count;
    w.u.memset.value = (uint32_t)(uint8_t)value;
    if ((st = emu_stream_submit(hs, &w)) != EMU_OK)
        return out(st);
    emu_stream_note_use(hs, emu_window_base((uint32_t)r.dev) + r.rec.off);
    return ACL_SUCCESS;
}

/* aclrtCreateStream and its WithConfig form: a stream of the thread's current device. */
static aclError create_stream(aclrtStream *stream, const char *fn)
{
    struct emu_hdev *d;
    struct emu_hstream *s;
    emu_status st;

    NULL_CHECK(stream, fn);
    EMU_ACL_NEED_INIT(fn);
    if ((st = emu_device_current(&d)) != EMU_OK ||
        (st = emu_stream_create(d, false, &s)) != EMU_OK)
        return out(st);
    *stream = s;
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
    return create_stream(stream, "aclrtCreateStream");
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    (void)priority; /* one scheduler class: priorities do not change results */
    if ((flag & ~0x3Fu) != 0) {
        EMU_LOG_ERR("aclrtCreateStreamWithConfig: unknown flag bits 0x%x", flag & ~0x3Fu);
        return out(EMU_EINVAL);
    }
    return create_stream(stream, "aclrtCreateStreamWithConfig");
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    struct emu_hstream *s;
    emu_status st;

    NULL_CHECK(stream, "aclrtDestroyStream");
    RETIRED_OK(stream, EMU_RETIRED_STREAM);
    EMU_ACL_NEED_INIT("aclrtDestroyStream");
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK && st != EMU_EDEVLOST)
        return out(st);
    if (s->is_default) {
        EMU_LOG_ERR("aclrtDestroyStream: the default stream belongs to the device");
        return out(EMU_EINVAL);
    }
    if ((st = emu_aclgraph_check_stream(s, "aclrtDestroyStream")) != EMU_OK)
        return out(st);
    emu_stream_destroy(s);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    struct emu_hstream *s;
    emu_status st;

    EMU_ACL_NEED_INIT("aclrtSynchronizeStream");
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK ||
        (st = emu_aclgraph_check_stream(s, "aclrtSynchronizeStream")) != EMU_OK)
        return out(st);
    return out(emu_stream_sync(s, UINT64_MAX));
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    struct emu_hstream *s;
    emu_status st;

    EMU_ACL_NEED_INIT("aclrtSynchronizeStreamWithTimeout");
    if (timeout < -1) {
        EMU_LOG_ERR("aclrtSynchronizeStreamWithTimeout: timeout %d ms (-1 = forever)", timeout);
        return out(EMU_EINVAL);
    }
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK ||
        (st = emu_aclgraph_check_stream(s, "aclrtSynchronizeStreamWithTimeout")) != EMU_OK)
        return out(st);
    return out(emu_stream_sync(s, emu_os_deadline_ms(timeout)));
}

aclError aclrtSynchronizeDevice(void)
{
    struct emu_hdev *d;
    emu_status st;

    EMU_ACL_NEED_INIT("aclrtSynchronizeDevice");
    if ((st = emu_device_current(&d)) != EMU_OK ||
        (st = emu_aclgraph_check_device(d->id, "aclrtSynchronizeDevice")) != EMU_OK)
        return out(st);
    return out(emu_stream_sync_device(d));
}

/* aclrtCreateEvent and its ExWithFlag form: an event of the thread's current device. */
static aclError create_event(aclrtEvent *event, const char *fn, bool capturable)
{
    struct emu_hdev *d;
    struct emu_event *e;
    emu_status st;

    NULL_CHECK(event, fn);
    EMU_ACL_NEED_INIT(fn);
    if ((st = emu_device_current(&d)) != EMU_OK || (st = emu_event_create(d, &e)) != EMU_OK)
        return out(st);
    if (capturable)
        emu_event_mark_ex(e);
    *event = e;
    return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create_event(event, "aclrtCreateEvent", false);
}

/* The hardware event kinds of `flag` are one kind here; what the flag-taking form changes is
 * that its events may be captured into a graph (acl_graph.c), as the runtime's "new mode". */
aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    (void)flag;
    return create_event(event, "aclrtCreateEventExWithFlag", true);
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    struct emu_event *e;
    struct emu_hstream *s;
    emu_status st;

    NULL_CHECK(event, "aclrtRecordEvent");
    bool captured;
    if ((st = emu_event_check(event, &e)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK ||
        (st = emu_aclgraph_event_record(e, s, EMU_CALLSITE(), &captured)) != EMU_OK || captured)
        return out(st);
    return out(emu_event_record(e, s, EMU_CALLSITE()));
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    struct emu_event *e;
    struct emu_hstream *s;
    emu_status st;

    NULL_CHECK(event, "aclrtStreamWaitEvent");
    bool captured;
    if ((st = emu_event_check(event, &e)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK ||
        (st = emu_aclgraph_event_wait(s, e, EMU_CALLSITE(), &captured)) != EMU_OK || captured)
        return out(st);
    return out(emu_event_wait(s, e, EMU_CALLSITE()));
}

aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    struct emu_event *e;
    emu_status st;

    NULL_CHECK(event, "aclrtSynchronizeEvent");
    if ((st = emu_event_check(event, &e)) != EMU_OK ||
        (st = emu_aclgraph_check_event(e, "aclrtSynchronizeEvent")) != EMU_OK)
        return out(st);
    return out(emu_event_sync(e));
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    struct emu_event *a, *b;
    emu_status st;

    NULL_CHECK(ms, "aclrtEventElapsedTime");
    NULL_CHECK(startEvent, "aclrtEventElapsedTime");
    NULL_CHECK(endEvent, "aclrtEventElapsedTime");
    if ((st = emu_event_check(startEvent, &a)) != EMU_OK ||
        (st = emu_event_check(endEvent, &b)) != EMU_OK ||
        (st = emu_aclgraph_check_event(a, "aclrtEventElapsedTime")) != EMU_OK ||
        (st = emu_aclgraph_check_event(b, "aclrtEventElapsedTime")) != EMU_OK)
        return out(st);
    return out(emu_event_elapsed(a, b, ms));
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
    struct emu_event *e;
    emu_status st;

    NULL_CHECK(event, "aclrtDestroyEvent");
    RETIRED_OK(event, EMU_RETIRED_EVENT);
    if ((st = emu_event_check(event, &e)) != EMU_OK)
        return out(st);
    emu_event_destroy(e);
    return ACL_SUCCESS;
}

aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    struct emu_hdev *d;
    struct emu_acl_notify *n;
    emu_status st;

    NULL_CHECK(notify, "aclrtCreateNotify");
    EMU_ACL_NEED_INIT("aclrtCreateNotify");
    if ((flag & ~(uint64_t)ACL_NOTIFY_DEVICE_USE_ONLY) != 0) {
        EMU_LOG_ERR("aclrtCreateNotify: unknown flag 0x%llx", (unsigned long long)flag);
        return out(EMU_EINVAL);
    }
    if ((st = emu_device_current(&d)) != EMU_OK || (st = emu_acl_notify_create(d, &n)) != EMU_OK)
        return out(st);
    *notify = n;
    return ACL_SUCCESS;
}

aclError aclrtDestroyNotify(aclrtNotify notify)
{
    struct emu_acl_notify *n;
    emu_status st;

    NULL_CHECK(notify, "aclrtDestroyNotify");
    RETIRED_OK(notify, EMU_RETIRED_NOTIFY);
    if ((st = emu_acl_notify_check(notify, &n)) != EMU_OK)
        return out(st);
    emu_acl_notify_destroy(n);
    return ACL_SUCCESS;
}

aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    struct emu_acl_notify *n;
    struct emu_hstream *s;
    emu_status st;

    NULL_CHECK(notify, "aclrtRecordNotify");
    if ((st = emu_acl_notify_check(notify, &n)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    return out(emu_acl_notify_record(n, s, EMU_CALLSITE()));
}

aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    struct emu_acl_notify *n;
    struct emu_hstream *s;
    emu_status st;

    NULL_CHECK(notify, "aclrtWaitAndResetNotify");
    if ((st = emu_acl_notify_check(notify, &n)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    return out(emu_acl_notify_wait(n, s, timeout, EMU_CALLSITE()));
}

aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    struct emu_acl_notify *n;
    emu_status st;

    NULL_CHECK(notify, "aclrtGetNotifyId");
    NULL_CHECK(notifyId, "aclrtGetNotifyId");
    if ((st = emu_acl_notify_check(notify, &n)) != EMU_OK)
        return out(st);
    *notifyId = emu_acl_notify_id(n);
    return ACL_SUCCESS;
}

aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL) {
        EMU_LOG_ERR("aclrtGetLastError: level %d is not ACL_RT_THREAD_LEVEL", (int)level);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return emu_api_last_error(1);
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL) {
        EMU_LOG_ERR("aclrtPeekAtLastError: level %d is not ACL_RT_THREAD_LEVEL", (int)level);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return emu_api_last_error(0);
}

const char *aclGetRecentErrMsg(void)
{
    return emu_log_last_error(1);
}
