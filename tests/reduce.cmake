# The reduction engine; its sources are compiled straight into the test because the device
# target belongs to the executor.
set(EMU_REDUCE_SOURCES
    ${CMAKE_SOURCE_DIR}/device/reduce.c
    ${CMAKE_SOURCE_DIR}/device/reduce_generic.c
    ${CMAKE_SOURCE_DIR}/device/reduce_sse2.c
    ${CMAKE_SOURCE_DIR}/device/reduce_avx2.c
    ${CMAKE_SOURCE_DIR}/device/reduce_avx512.c)
emu_add_test(reduce SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_reduce.c ${EMU_REDUCE_SOURCES}
             LIBS hcemu_common m TIMEOUT 120)
