/* hcemu_asc_launch.h - what hcemu-cc gives .asc and .aicpu sources: the AICPU image descriptor
 * that each compiled .aicpu object defines per kernel, and the launch of K<<<blocks, l2ctrl,
 * stream>>>(args) by kernel name through the ACL API (so a failed launch reports and sets the
 * last error exactly as aclrtLaunchKernelWithConfig does). Not a vendor header. */
#ifndef HCEMU_ASC_LAUNCH_H
#define HCEMU_ASC_LAUNCH_H

/* One per kernel of a compiled .aicpu file: the device image embedded in the object, and the
 * binary handle the first launch loads it as (shared by every launch in the process). */
struct hcemu_aicpu_image {
    const unsigned char *begin;
    const unsigned char *end;
    const char *kernel;
    void *bin;
};

#ifdef __cplusplus
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

#include <acl/acl_rt.h>

namespace hcemu_asc {

/* The binary handle of an image, loaded once; a racing second load is unloaded again. */
inline aclrtBinHandle binary_of(hcemu_aicpu_image *img)
{
    void *bin = __atomic_load_n(&img->bin, __ATOMIC_ACQUIRE);
    if (bin != nullptr)
        return bin;
    aclrtBinHandle mine = nullptr;
    if (aclrtBinaryLoadFromData(img->begin, (size_t)(img->end - img->begin), nullptr, &mine) !=
        ACL_SUCCESS)
        return nullptr;
    void *expected = nullptr;
    if (!__atomic_compare_exchange_n(&img->bin, &expected, mine, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        (void)aclrtBinaryUnLoad(mine);
        return expected;
    }
    return mine;
}

class site {
public:
    site(hcemu_aicpu_image *img, const char *name, const char *file, int line, uint32_t blocks,
         void *l2ctrl, aclrtStream stream)
        : img_(img), name_(name), file_(file), line_(line), blocks_(blocks), stream_(stream)
    {
        (void)l2ctrl; /* L2 cache control has no effect on an emulated AICPU */
    }

    /* K<<<...>>>(args, size): the bytes [args, args + size) are the kernel's argument block. */
    template <typename P, typename N,
              typename std::enable_if<std::is_pointer<P>::value && std::is_integral<N>::value,
                                      int>::type = 0>
    void operator()(P args, N size) const
    {
        void *parts[1] = {const_cast<void *>(static_cast<const void *>(args))};
        size_t sizes[1] = {static_cast<size_t>(size)};
        launch(parts, sizes, 1);
    }

    /* Any other argument list: each argument's bytes, in order, as one parameter each. */
    template <typename... A> void operator()(A... a) const
    {
        void *parts[sizeof...(A) + 1] = {static_cast<void *>(&a)..., nullptr};
        size_t sizes[sizeof...(A) + 1] = {sizeof(A)..., 0};
        launch(parts, sizes, sizeof...(A));
    }

private:
    void launch(void **parts, size_t *sizes, size_t n) const
    {
        aclrtFuncHandle f = nullptr;
        aclrtArgsHandle args = nullptr;
        aclrtParamHandle p;
        if (img_ == nullptr) {
            fprintf(stderr, "[hcemu] error: %s:%d: %s<<<>>>: no compiled .aicpu source of this "
                            "program defines kernel %s\n", file_, line_, name_, name_);
            /* records the launch error as a failed aclrtLaunchKernelWithConfig does */
            (void)aclrtLaunchKernelWithConfig(nullptr, blocks_, stream_, nullptr, nullptr, nullptr);
            return;
        }
        /* Each failing call below has already reported itself and set the last error. */
        aclrtBinHandle bin = binary_of(img_);
        if (bin == nullptr || aclrtBinaryGetFunction(bin, name_, &f) != ACL_SUCCESS ||
            aclrtKernelArgsInit(f, &args) != ACL_SUCCESS)
            return;
        for (size_t i = 0; i < n; i++)
            if (aclrtKernelArgsAppend(args, parts[i], sizes[i], &p) != ACL_SUCCESS)
                return;
        if (aclrtKernelArgsFinalize(args) == ACL_SUCCESS)
            (void)aclrtLaunchKernelWithConfig(f, blocks_, stream_, nullptr, args, nullptr);
    }

    hcemu_aicpu_image *img_;
    const char *name_;
    const char *file_;
    int line_;
    uint32_t blocks_;
    aclrtStream stream_;
};

inline site launch(hcemu_aicpu_image *img, const char *name, const char *file, int line,
                   uint32_t blocks, void *l2ctrl, aclrtStream stream)
{
    return site(img, name, file, line, blocks, l2ctrl, stream);
}

inline site launch(hcemu_aicpu_image *img, const char *name, const char *file, int line,
                   uint32_t blocks, aclrtStream stream)
{
    return site(img, name, file, line, blocks, nullptr, stream);
}

} // namespace hcemu_asc
#endif
#endif
