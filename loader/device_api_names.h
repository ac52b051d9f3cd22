/* device_api_names.h - the one list of device-side API functions an AICPU kernel may import.
 *
 * Every Hcomm* function of docs/DATA_PLANE.md, including the package-internal
 * HcommThreadJoin and HcommThreadSynchronize, and the HCCL 9.2 device functions. The loader accepts exactly these names as device
 * API imports, and hcemu-device must export every one (it can check with this same list), so
 * a kernel the loader accepts never fails to dlopen for want of a device symbol.
 * Usage: #define X(name) ...; EMU_DEVICE_API_NAMES(X) */
#ifndef HCEMU_LOADER_DEVICE_API_NAMES_H
#define HCEMU_LOADER_DEVICE_API_NAMES_H

#define EMU_DEVICE_API_NAMES(X)                                                                    \
    /* 6.1 local operations */                                                                     \
    X(HcommLocalCopyOnThread)                                                                      \
    X(HcommLocalReduceOnThread)                                                                    \
    X(HcommThreadNotifyRecordOnThread)                                                             \
    X(HcommThreadNotifyWaitOnThread)                                                               \
    X(HcommThreadNotifyWaitOnThreadWithDefaultTimeout)                                             \
    X(HcommAclrtNotifyRecordOnThread)                                                              \
    X(HcommAclrtNotifyWaitOnThread)                                                                \
    /* 6.2 remote data movement */                                                                 \
    X(HcommWriteOnThread)                                                                          \
    X(HcommWriteReduceOnThread)                                                                    \
    X(HcommWriteWithNotifyOnThread)                                                                \
    X(HcommWriteReduceWithNotifyOnThread)                                                          \
    X(HcommReadOnThread)                                                                           \
    X(HcommReadReduceOnThread)                                                                     \
    X(HcommBatchTransferOnThread)                                                                  \
    /* 6.3 host-CPU RoCE variants: linkable on the device, return HCCL_E_NOT_SUPPORT */            \
    X(HcommWriteNbiOnThread)                                                                       \
    X(HcommWriteNbi)                                                                               \
    X(HcommReadNbiOnThread)                                                                        \
    X(HcommReadNbi)                                                                                \
    X(HcommWriteWithNotifyNbiOnThread)                                                             \
    X(HcommWriteWithNotifyNbi)                                                                     \
    /* 6.4 channel notifies */                                                                     \
    X(HcommChannelNotifyRecordOnThread)                                                            \
    X(HcommChannelNotifyWaitOnThread)                                                              \
    X(HcommChannelNotifyWaitOnThreadWithDefaultTimeout)                                            \
    X(HcommChannelNotifyRecord)                                                                    \
    X(HcommChannelNotifyWait)                                                                      \
    /* 6.5 fences and drains */                                                                    \
    X(HcommChannelFenceOnThread)                                                                   \
    X(HcommChannelFence)                                                                           \
    X(HcommFenceOnThread)                                                                          \
    X(HcommChannelDrainOnThread)                                                                   \
    X(HcommThreadJoin)                                                                             \
    X(HcommThreadSynchronize)                                                                      \
    /* 6.6 timeouts */                                                                             \
    X(HcommSetNotifyWaitTimeOut)                                                                   \
    X(HcommThreadResAcquireTimeOut)                                                                \
    /* 6.7 batch mode */                                                                           \
    X(HcommBatchModeStart)                                                                         \
    X(HcommBatchModeEnd)                                                                           \
    /* 6.8 communicator lock */                                                                    \
    X(HcommAcquireComm)                                                                            \
    X(HcommReleaseComm)                                                                            \
    /* 6.9 AICPU_TS task cache */                                                                  \
    X(HcommAicpuTsTaskCacheLookup)                                                                 \
    X(HcommAicpuTsTaskCacheStart)                                                                  \
    X(HcommAicpuTsTaskCacheEnd)                                                                    \
    X(HcommAicpuTsTaskCacheExecute)                                                                \
    X(HcommAicpuTsTaskCacheClear)                                                                  \
    /* HCCL 9.2 device functions (device/dp/api_hccl_device.c) */                                  \
    X(HcclCommGetStatus)                                                                           \
    X(HcclGroupStatusGet)                                                                          \
    X(HcclCommRegCommStateCallback)                                                                \
    X(HcclDfxRegOpInfoByCommId)                                                                    \
    X(HcommRegOpInfo)                                                                              \
    X(HcommRegOpTaskException)                                                                     \
    X(HcommProfilingReportDeviceOp)                                                                \
    X(HcommProfilingReportKernelStartTask)                                                         \
    X(HcommProfilingReportKernelEndTask)                                                           \
    X(HcommProfilingReportMainStreamAndFirstTask)                                                  \
    X(HcommProfilingReportMainStreamAndLastTask)                                                   \
    X(HcommProfilingReportDeviceHcclOpInfo)                                                        \
    X(HcommProfilingInit)                                                                          \
    X(HcommProfilingEnd)                                                                           \
    X(HcclAicpuKernelLaunch)                                                                       \
    X(HcommChannelNotifyWaitWithDefaultTimeout)                                                    \
    X(HcclSymWinGetPeerPointer)                                                                    \
    X(HcommSymWinGetPeerPointer)                                                                   \
    X(HcclCommSymWinGet)                                                                           \
    /* hcemu's own, for its built-in collectives' image (device/dp/api_hcemu.c) */                 \
    X(hcemu_read_published)                                                                        \
    X(hcemu_write_published)                                                                       \
    X(hcemu_read_reduce_published)                                                                 \
    X(hcemu_read_reduce_published_into)                                                            \
    X(hcemu_reduce_spread_published)                                                               \
    X(hcemu_record_done)                                                                           \
    X(hcemu_wait_copy)                                                                             \
    X(hcemu_wait_reduce)                                                                           \
    X(hcemu_cache_replay)                                                                          \
    X(hcemu_cache_record_end)

#endif
