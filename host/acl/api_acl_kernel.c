/* api_acl_kernel.c - the ACL boundary for kernel binaries, argument lists and launches. */
#include <acl/acl.h>

#include "api.h"
#include "common/platform/log.h"
#include "binary.h"
#include "kernel.h"
#include "runtime.h"

#define DEFAULT_LAUNCH_TIMEOUT_S 1836ull

static aclError out(emu_status s)
{
    return emu_api_acl(s);
}

/* Calls that load, resolve or launch need the runtime (EMU_ACL_NEED_INIT): binaries outlive
 * aclFinalize (so aclrtBinaryUnLoad can still free them), but nothing may be resolved or run
 * from them. */

#define CHECK(cond, fn, ...)                                                                   \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            EMU_LOG_ERR(fn ": " __VA_ARGS__);                                                  \
            return out(EMU_EINVAL);                                                            \
        }                                                                                      \
    } while (0)

static emu_status read_options(const aclrtBinaryLoadOptions *options, struct emu_binary_options *o)
{
    o->has_mode = false;
    o->cpu_kernel_mode = 0;
    if (options == NULL)
        return EMU_OK;
    if (options->numOpt > 0 && options->options == NULL) {
        EMU_LOG_ERR("binary load options: numOpt is %zu but options is NULL", options->numOpt);
        return EMU_EINVAL;
    }
    for (size_t i = 0; i < options->numOpt; i++) {
        const aclrtBinaryLoadOption *op = &options->options[i];
        switch (op->type) {
        case ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE:
            o->has_mode = true;
            o->cpu_kernel_mode = op->value.cpuKernelMode;
            break;
        case ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD:
        case ACL_RT_BINARY_LOAD_OPT_MAGIC:
            break; /* loading is lazy anyway; magic values describe AI Core images */
        default:
            EMU_LOG_ERR("binary load option type %d is unknown", (int)op->type);
            return EMU_EINVAL;
        }
    }
    return EMU_OK;
}

aclError aclrtBinaryLoadFromFile(const char *binPath, aclrtBinaryLoadOptions *options,
                                 aclrtBinHandle *binHandle)
{
    struct emu_binary_options o;
    struct emu_binary *b;
    emu_status s;

    CHECK(binPath != NULL && binHandle != NULL, "aclrtBinaryLoadFromFile", "NULL argument");
    EMU_ACL_NEED_INIT("aclrtBinaryLoadFromFile");
    if ((s = read_options(options, &o)) != EMU_OK ||
        (s = emu_binary_load_file(binPath, &o, &b)) != EMU_OK)
        return out(s);
    *binHandle = b;
    return ACL_SUCCESS;
}

aclError aclrtBinaryLoadFromData(const void *data, size_t length,
                                 const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle)
{
    struct emu_binary_options o;
    struct emu_binary *b;
    emu_status s;

    CHECK(data != NULL && binHandle != NULL && length > 0, "aclrtBinaryLoadFromData",
          "NULL argument or empty image");
    EMU_ACL_NEED_INIT("aclrtBinaryLoadFromData");
    if ((s = read_options(options, &o)) != EMU_OK ||
        (s = emu_binary_load_data(data, length, &o, &b)) != EMU_OK)
        return out(s);
    *binHandle = b;
    return ACL_SUCCESS;
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName,
                                aclrtFuncHandle *funcHandle)
{
    struct emu_binary *b;
    struct emu_function *f;
    emu_status s;

    CHECK(binHandle != NULL && kernelName != NULL && funcHandle != NULL,
          "aclrtBinaryGetFunction", "NULL argument");
    EMU_ACL_NEED_INIT("aclrtBinaryGetFunction");
    if ((s = emu_binary_check(binHandle, &b)) != EMU_OK ||
        (s = emu_binary_get_function(b, kernelName, &f)) != EMU_OK)
        return out(s);
    *funcHandle = f;
    return ACL_SUCCESS;
}

aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle)
{
    struct emu_binary *b;
    emu_status s;

    CHECK(binHandle != NULL, "aclrtBinaryUnLoad", "binHandle is NULL");
    if ((s = emu_binary_check(binHandle, &b)) != EMU_OK)
        return out(s);
    emu_binary_unload(b);
    return ACL_SUCCESS;
}

aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName,
                              const char *kernelName, aclrtFuncHandle *funcHandle)
{
    struct emu_binary *b;
    struct emu_function *f;
    emu_status s;

    CHECK(handle != NULL && funcName != NULL && kernelName != NULL && funcHandle != NULL,
          "aclrtRegisterCpuFunc", "NULL argument");
    EMU_ACL_NEED_INIT("aclrtRegisterCpuFunc");
    if ((s = emu_binary_check(handle, &b)) != EMU_OK ||
        (s = emu_binary_register(b, funcName, kernelName, &f)) != EMU_OK)
        return out(s);
    *funcHandle = f;
    return ACL_SUCCESS;
}

aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
    struct emu_function *f;
    struct emu_args *a;
    emu_status s;

    CHECK(funcHandle != NULL && argsHandle != NULL, "aclrtKernelArgsInit", "NULL argument");
    EMU_ACL_NEED_INIT("aclrtKernelArgsInit");
    if ((s = emu_function_check(funcHandle, &f)) != EMU_OK || (s = emu_args_init(f, &a)) != EMU_OK)
        return out(s);
    *argsHandle = a;
    return ACL_SUCCESS;
}

aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param, size_t paramSize,
                               aclrtParamHandle *paramHandle)
{
    struct emu_args *a;
    emu_status s;

    CHECK(param != NULL && paramHandle != NULL && paramSize > 0, "aclrtKernelArgsAppend",
          "param and paramHandle must not be NULL, paramSize must not be 0");
    if ((s = emu_args_check(argsHandle, &a)) != EMU_OK ||
        (s = emu_args_append(a, param, paramSize, paramHandle)) != EMU_OK)
        return out(s);
    return ACL_SUCCESS;
}

aclError aclrtKernelArgsAppendPlaceHolder(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle)
{
    struct emu_args *a;
    emu_status s;

    CHECK(paramHandle != NULL, "aclrtKernelArgsAppendPlaceHolder", "paramHandle is NULL");
    if ((s = emu_args_check(argsHandle, &a)) != EMU_OK ||
        (s = emu_args_append_placeholder(a, paramHandle)) != EMU_OK)
        return out(s);
    return ACL_SUCCESS;
}

aclError aclrtKernelArgsGetPlaceHolderBuffer(aclrtArgsHandle argsHandle,
                                             aclrtParamHandle paramHandle, size_t dataSize,
                                             void **bufferAddr)
{
    struct emu_args *a;
    emu_status s;

    CHECK(paramHandle != NULL && bufferAddr != NULL && dataSize > 0,
          "aclrtKernelArgsGetPlaceHolderBuffer", "NULL argument or dataSize 0");
    if ((s = emu_args_check(argsHandle, &a)) != EMU_OK ||
        (s = emu_args_placeholder_buffer(a, paramHandle, dataSize, bufferAddr)) != EMU_OK)
        return out(s);
    return ACL_SUCCESS;
}

aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle,
                                   void *param, size_t paramSize)
{
    struct emu_args *a;
    emu_status s;

    CHECK(paramHandle != NULL && param != NULL && paramSize > 0, "aclrtKernelArgsParaUpdate",
          "NULL argument or paramSize 0");
    if ((s = emu_args_check(argsHandle, &a)) != EMU_OK ||
        (s = emu_args_update(a, paramHandle, param, paramSize)) != EMU_OK)
        return out(s);
    return ACL_SUCCESS;
}

aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle)
{
    struct emu_args *a;
    emu_status s;

    if ((s = emu_args_check(argsHandle, &a)) != EMU_OK)
        return out(s);
    emu_args_finalize(a);
    return ACL_SUCCESS;
}

static emu_status read_cfg(const aclrtLaunchKernelCfg *cfg, uint64_t *timeout_us)
{
    bool have_s = false, have_us = false;

    *timeout_us = DEFAULT_LAUNCH_TIMEOUT_S * 1000000ull;
    if (cfg == NULL)
        return EMU_OK;
    if (cfg->numAttrs > 0 && cfg->attrs == NULL) {
        EMU_LOG_ERR("launch config has %zu attributes but no array", cfg->numAttrs);
        return EMU_EINVAL;
    }
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtLaunchKernelAttr *at = &cfg->attrs[i];
        if (at->id == ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT) {
            have_s = true;
            *timeout_us = (uint64_t)at->value.timeout * 1000000ull;
        } else if (at->id == ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US) {
            have_us = true;
            *timeout_us = ((uint64_t)at->value.timeoutUs.timeoutHigh << 32) |
                          at->value.timeoutUs.timeoutLow;
        } else if (at->id == ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE &&
                   at->value.engineType != ACL_RT_ENGINE_TYPE_AIC &&
                   at->value.engineType != ACL_RT_ENGINE_TYPE_AIV) {
            EMU_LOG_ERR("launch config attribute %zu: engine type %d is not AIC or AIV", i,
                        (int)at->value.engineType);
            return EMU_EINVAL;
        } else if (at->id < ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE ||
                   at->id > ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING) {
            EMU_LOG_ERR("launch config attribute %zu: id %d is not an aclrtLaunchKernelAttrId", i,
                        (int)at->id);
            return EMU_EINVAL;
        }
        /* Other attributes (scheduling mode, UB size, prefetch, dump, profiling) do not
         * change what an AICPU kernel computes. */
    }
    if (have_s && have_us) {
        EMU_LOG_ERR("launch config sets both TIMEOUT and TIMEOUT_US");
        return EMU_EINVAL;
    }
    return EMU_OK;
}

aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                     aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                     aclrtArgsHandle argsHandle, void *reserve)
{
    struct emu_function *f;
    struct emu_args *a;
    struct emu_hstream *s;
    struct emu_launch_opts o = {.blocks = numBlocks,
                                .callsite = (uint64_t)(uintptr_t)__builtin_return_address(0)};
    emu_status st;

    CHECK(funcHandle != NULL && argsHandle != NULL, "aclrtLaunchKernelWithConfig",
          "NULL function or argument handle");
    CHECK(reserve == NULL, "aclrtLaunchKernelWithConfig", "reserve must be NULL");
    CHECK(numBlocks >= 1 && numBlocks <= 1024, "aclrtLaunchKernelWithConfig",
          "numBlocks %u must be in [1, 1024]", numBlocks);
    EMU_ACL_NEED_INIT("aclrtLaunchKernelWithConfig");
    if ((st = emu_function_check(funcHandle, &f)) != EMU_OK ||
        (st = emu_args_check(argsHandle, &a)) != EMU_OK ||
        (st = read_cfg(cfg, &o.timeout_us)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    return out(emu_kernel_launch(f, a, s, &o));
}

/* The argument bytes go through an argument list of their own (copied at the call), as
 * aclrtKernelArgsInit/Append/Finalize and aclrtLaunchKernelWithConfig would make it. */
aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                       aclrtStream stream, aclrtLaunchKernelCfg *cfg,
                                       void *hostArgs, size_t argsSize,
                                       aclrtPlaceHolderInfo *placeHolderArray,
                                       size_t placeHolderNum)
{
    struct emu_function *f;
    struct emu_args *a;
    struct emu_hstream *s;
    void *param;
    struct emu_launch_opts o = {.blocks = numBlocks,
                                .callsite = (uint64_t)(uintptr_t)__builtin_return_address(0)};
    emu_status st;

    (void)placeHolderArray;
    if (placeHolderNum != 0) {
        EMU_LOG_ERR("aclrtLaunchKernelWithHostArgs is not supported by hcemu: placeholders; "
                    "append them with aclrtKernelArgsAppendPlaceHolder");
        return out(EMU_ERTNOTSUP);
    }
    CHECK(funcHandle != NULL && (hostArgs != NULL || argsSize == 0),
          "aclrtLaunchKernelWithHostArgs", "NULL function handle or hostArgs");
    CHECK(numBlocks >= 1 && numBlocks <= 1024, "aclrtLaunchKernelWithHostArgs",
          "numBlocks %u must be in [1, 1024]", numBlocks);
    EMU_ACL_NEED_INIT("aclrtLaunchKernelWithHostArgs");
    if ((st = emu_function_check(funcHandle, &f)) != EMU_OK || (st = emu_args_init(f, &a)) != EMU_OK ||
        (argsSize > 0 && (st = emu_args_append(a, hostArgs, argsSize, &param)) != EMU_OK))
        return out(st);
    emu_args_finalize(a);
    if ((st = read_cfg(cfg, &o.timeout_us)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    return out(emu_kernel_launch(f, a, s, &o));
}

aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
                           size_t argsSize, aclrtStream stream)
{
    struct emu_function *f;
    struct emu_hstream *s;
    struct emu_launch_opts o = {.blocks = numBlocks,
                                .timeout_us = DEFAULT_LAUNCH_TIMEOUT_S * 1000000ull,
                                .callsite = (uint64_t)(uintptr_t)__builtin_return_address(0)};
    emu_status st;

    CHECK(funcHandle != NULL && argsData != NULL && argsSize > 0, "aclrtLaunchKernel",
          "NULL function or arguments, or argsSize 0");
    CHECK(numBlocks >= 1 && numBlocks <= 1024, "aclrtLaunchKernel",
          "numBlocks %u must be in [1, 1024]", numBlocks);
    EMU_ACL_NEED_INIT("aclrtLaunchKernel");
    if ((st = emu_function_check(funcHandle, &f)) != EMU_OK ||
        (st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    return out(emu_kernel_launch_raw(f, argsData, argsSize, s, &o));
}
