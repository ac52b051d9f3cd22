# settings: the one table of environment variables (common/settings.c) - parsing, ranges,
# bad values, the control-block hand-over, and README.md's environment table kept in step.
emu_add_test(settings SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_settings.c LIBS hcemu_common)
target_compile_definitions(test_settings PRIVATE HCEMU_README="${CMAKE_SOURCE_DIR}/README.md")
