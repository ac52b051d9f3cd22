/* package.h - kernel images inside installed AICPU custom-op packages, found as the device
 * finds them: a descriptor <vendor>/aicpu/config/x.json whose kernelSo is not beside it names
 * an image inside a package <vendor>/aicpu/kernel/<pkg>.tar.gz (aicpu_kernels_device/lib*.so),
 * which is used only when <toolkit>/conf/ascend_package_load.ini lists it. Packages are
 * extracted once per job, into the job folder (so they go with it). */
#ifndef HCEMU_HOST_ACL_PACKAGE_H
#define HCEMU_HOST_ACL_PACKAGE_H

#include <stddef.h>

#include "common/contract/status.h"

/* The path of kernel image base_of(`so_path`) for descriptor `json`, extracted from the package that
 * holds it into `job_dir`. EMU_EFILE (one log line) when no package holds it; EMU_ENOTFOUND
 * (one log line naming the ini entry to add) when the package is not whitelisted. */
emu_status emu_package_find_image(const char *json, const char *so_path, const char *job_dir,
                                  char *out, size_t out_len) EMU_MUST_CHECK;

#endif
