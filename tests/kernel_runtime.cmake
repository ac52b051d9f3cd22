# kernel_runtime: kernels loaded from their descriptors, launched with packed arguments on
# several devices and blocks, and every failure kind (non-zero return, crashes, timeout).
# The kernels are real AICPU images built by hcemu_add_kernel into ${CMAKE_BINARY_DIR}/kernels.
hcemu_add_kernel(krt_basic SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/krt_basic.c
                 ENTRIES krt_args_echo KrtAdd=krt_add krt_mul krt_count krt_placeholder
                         krt_return krt_wait_flag)
hcemu_add_kernel(krt_blocks SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/krt_blocks.c
                 ENTRIES krt_blocks krt_spin)
hcemu_add_kernel(krt_crash SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/krt_crash.c
                 ENTRIES krt_crash_null krt_crash_store krt_crash_bus krt_crash_fpe
                         krt_crash_ill krt_crash_abort krt_exit krt_close_fds)
hcemu_add_kernel(krt_host_import SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/krt_host_import.c
                 ENTRIES krt_host_import)
hcemu_add_kernel(krt_cxx SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/krt_cxx.cpp
                 ENTRIES krt_cxx_sum)

emu_add_test(kernel_runtime SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_kernel_runtime.c
             LIBS hcemu TIMEOUT 180)
add_dependencies(test_kernel_runtime krt_basic krt_blocks krt_crash krt_host_import krt_cxx
                 hcemu-device)
target_compile_definitions(test_kernel_runtime PRIVATE
    KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels"
    KRT_CRASH_SRC="${CMAKE_CURRENT_SOURCE_DIR}/kernels/krt_crash.c")
