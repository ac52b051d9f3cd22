# A user's error code survives end to end through the built-in collectives: one test per code
# class (PARA, PTR, MEMORY, NOT_SUPPORT, TIMEOUT, REMOTE), each arising at a different depth.
emu_add_test(coll_codes SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_coll_codes.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 120)
