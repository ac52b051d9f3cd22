# placement: binding executor workers to a core while the job oversubscribes the machine
# (common/platform/placement.c), alone; again as placement_off with HCEMU_BIND=0.
emu_add_test(placement SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_placement.c LIBS hcemu_common
             TIMEOUT 30)
add_test(NAME placement_off COMMAND test_placement)
set_tests_properties(placement_off PROPERTIES TIMEOUT 30 ENVIRONMENT "HCEMU_BIND=0")
