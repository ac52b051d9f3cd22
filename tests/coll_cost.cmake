# coll_cost: the built-in collectives' default algorithm (host/coll/coll_cost.c) on fixed
# machine figures, the card's rule for the modelled clock, and the machine figures' cache
# (common/platform/machine.c).
emu_add_test(coll_cost SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_coll_cost.c
             ${CMAKE_SOURCE_DIR}/host/coll/coll_cost.c LIBS hcemu_common TIMEOUT 30)
# hcemu-run --machine-cost: each algorithm's modelled time for one call on given figures (the
# 2-core machine test_coll_cost.c describes: halving-doubling's 4-rank 128 KiB allreduce, and
# two-shot's, priced as docs/COLLECTIVES.md says); a call it cannot read is a usage error.
add_test(NAME machine_cost COMMAND $<TARGET_FILE:hcemu-run> --machine-cost allreduce:4:128K)
set_tests_properties(machine_cost PROPERTIES TIMEOUT 30
    ENVIRONMENT "HCEMU_MACHINE=copy=34.8,handoff=0.86,cores=2,cache=171"
    PASS_REGULAR_EXPRESSION "twoshot 67\\.[0-9]\nring [0-9.]+\nrhd 92\\.[0-9]")
add_test(NAME machine_cost_bad COMMAND sh -c [[
out=$("$0" --machine-cost allreduce:1:1K 2>&1); rc=$?
case $rc:$out in 2:*"expected OPERATOR:RANKS:SIZE"*) exit 0 ;; esac
echo "exit $rc: $out"; exit 1]] $<TARGET_FILE:hcemu-run>)
set_tests_properties(machine_cost_bad PROPERTIES TIMEOUT 30)
