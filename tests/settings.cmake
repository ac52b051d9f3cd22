# settings: the one table of environment variables (common/contract/settings.c) - parsing, ranges,
# bad values, the control-block hand-over, and docs/SETTINGS.md's environment table kept in step.
emu_add_test(settings SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_settings.c LIBS hcemu_common)
target_compile_definitions(test_settings PRIVATE HCEMU_SETTINGS_DOC="${CMAKE_SOURCE_DIR}/docs/SETTINGS.md")

# Two host processes on one job folder: the executor carries the first one's settings in its
# control block, and the second, with different ones, is warned once.
emu_add_test(settings_join SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_settings_join.c
                                   ${CMAKE_CURRENT_SOURCE_DIR}/support/rt_support.c
             LIBS hcemu TIMEOUT 60)
add_dependencies(test_settings_join hcemu-device)
