# launch: the rank identity launchers hand a process (common/contract/launch.c).
emu_add_test(launch SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_launch.c LIBS hcemu_common)
