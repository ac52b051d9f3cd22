# sched: the TS scheduler core (device/sched.c, task.c, spin.c, the hcemu_sched library)
# linked alone, with no diagnostic and no executor.
emu_add_test(sched SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sched.c
             LIBS hcemu_sched hcemu_common TIMEOUT 60)
