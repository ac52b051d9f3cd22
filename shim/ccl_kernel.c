/* ccl_kernel.c - the device library AICPU kernels link (-lccl_kernel). It defines nothing a
 * kernel needs: the Hcomm* calls stay undefined in the kernel image and bind to the emulated
 * AICPU (hcemu-device) when it loads the image. */
const char hcemu_ccl_kernel_note[] = "hcemu: Hcomm* are provided by hcemu-device at load time";
