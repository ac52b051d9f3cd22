# hcomm_check: the Hcomm call checks shared by host and executor (common/contract/hcomm_check.c), on
# control blocks made in memory; no device process.
emu_add_test(hcomm_check SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_hcomm_check.c
             LIBS hcemu_common m TIMEOUT 30 LABELS dataplane)
