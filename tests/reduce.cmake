# The reduction engine (device/reduce/, the hcemu_reduce library).
emu_add_test(reduce SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_reduce.c
             LIBS hcemu_reduce hcemu_common m TIMEOUT 120)
