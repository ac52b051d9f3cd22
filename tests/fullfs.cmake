# fullfs: a full job-folder file system (a small tmpfs in a mount namespace of the child's
# own) makes aclrtMalloc / aclrtMallocHost fail with the memory error, never a SIGBUS, and so
# do copies, memsets and collectives into pages had on first use after it filled up.
emu_add_test(fullfs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_fullfs.c
                            ${CMAKE_CURRENT_SOURCE_DIR}/support/rt_support.c
             LIBS hcemu hcemu_common TIMEOUT 150)
add_dependencies(test_fullfs hcemu-device)
