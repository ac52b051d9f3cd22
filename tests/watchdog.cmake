# watchdog: the hang watchdog's reports that need no communicator - a kernel that runs on
# without queuing anything, a stopped executor - and no false hang while long copies run on
# busy cores. Scenarios run in child programs (tests/support/rt_support.c) so their stderr is
# read whole after the child ended.
emu_add_test(watchdog SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_watchdog.c
                              ${CMAKE_CURRENT_SOURCE_DIR}/support/rt_support.c
             LIBS hcemu TIMEOUT 180)
add_dependencies(test_watchdog krt_blocks hcemu-device)
target_compile_definitions(test_watchdog PRIVATE KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels")
