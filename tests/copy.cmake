# emu_copy (common/platform/copy.h): memcpy's bytes at every distance and size class.
emu_add_test(copy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_copy.c LIBS hcemu_common)
