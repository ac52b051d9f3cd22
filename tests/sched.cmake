# sched: the TS scheduler core (device/sched/sched.c, task.c, spin.c, the hcemu_sched library)
# linked alone, with no diagnostic and no executor.
emu_add_test(sched SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sched.c
             LIBS hcemu_sched hcemu_common TIMEOUT 60)
# The same with yielding polls off (HCEMU_POLL_US=0: a waiting thread sleeps at once; the
# default polls 300 us first).
add_test(NAME sched_nopoll COMMAND test_sched)
set_tests_properties(sched_nopoll PROPERTIES TIMEOUT 60 ENVIRONMENT "HCEMU_POLL_US=0")
