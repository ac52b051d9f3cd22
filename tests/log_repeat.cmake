# Repeated identical error lines are throttled (common/platform/log.c): the first few, then counts.
emu_add_test(log_repeat SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_log_repeat.c LIBS hcemu_common)
