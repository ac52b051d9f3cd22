# coll_cost: the built-in collectives' default algorithm (host/coll/coll_cost.c) on fixed
# machine figures, the card's rule for the modelled clock, and the machine figures' cache
# (common/platform/machine.c).
emu_add_test(coll_cost SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_coll_cost.c
             ${CMAKE_SOURCE_DIR}/host/coll/coll_cost.c LIBS hcemu_common TIMEOUT 30)
