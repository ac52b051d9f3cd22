# sched: the TS scheduler core (device/sched/sched.c, task.c, spin.c, the hcemu_sched library)
# linked alone, with no diagnostic and no executor.
emu_add_test(sched SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sched.c
             LIBS hcemu_sched hcemu_common TIMEOUT 60)
# The same with yielding polls on (HCEMU_POLL_US=300; the default 0 sleeps at once).
add_test(NAME sched_poll COMMAND test_sched)
set_tests_properties(sched_poll PROPERTIES TIMEOUT 60 ENVIRONMENT "HCEMU_POLL_US=300")
