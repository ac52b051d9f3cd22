// aicpu_tar_empty.cc - an empty stand-in for the AICPU package archive CANN's build embeds in
// libhccl (objcopy'd aicpu_hccl.tar.gz): the host slice does not restore a device package,
// hcemu's prefix installs the kernel library and its descriptor instead. Start == end: size 0.
asm(".globl _binary_aicpu_hccl_tar_gz_start\n"
    ".globl _binary_aicpu_hccl_tar_gz_end\n"
    ".section .rodata\n"
    "_binary_aicpu_hccl_tar_gz_start:\n"
    "_binary_aicpu_hccl_tar_gz_end:\n"
    ".byte 0\n"
    ".previous\n");
