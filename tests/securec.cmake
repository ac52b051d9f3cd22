# libc_sec: the securec.h functions CANN code calls, with the vendor return codes.
emu_add_test(securec SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_securec.c LIBS c_sec)
