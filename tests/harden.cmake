# harden: job folders and files only their owner's job can use (planted folders, symlinks,
# wrong modes, foreign owners), removal that never follows symlinks, the dead-job collector,
# executors that end with their host, children a kernel forks, FIFO and /dev/zero inputs
# refused, and HCCL buffers that cost only the pages used.
hcemu_add_kernel(harden_fork SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/harden_fork.c
                 ENTRIES harden_fork_return harden_fork_stay)
# The image whose constructor never returns, shared with scripts/fault-table.
hcemu_add_kernel(harden_ctor SOURCES ${CMAKE_SOURCE_DIR}/bench/fault_ctor.c ENTRIES fault_ctor)

emu_add_test(harden SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_harden.c
                            ${CMAKE_CURRENT_SOURCE_DIR}/support/rt_support.c
             LIBS hcemu hcemu_common TIMEOUT 180)
add_dependencies(test_harden harden_fork harden_ctor hcemu-device hcemu-inspect hcemu-run)
target_compile_definitions(test_harden PRIVATE
    KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels"
    INSPECT_BIN="$<TARGET_FILE:hcemu-inspect>"
    RUN_BIN="$<TARGET_FILE:hcemu-run>")
