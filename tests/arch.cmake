# arch: the import graph of device/ (scripts/import-graph) has no loop at all. The loops broken
# so far: sched/task/spin never call up (hooks); fault and kernel (kernel.c answers fault.c
# through struct emu_fault_locator); dp_submit with dp_cache or dp_drain (dp_drain.c sets
# dp_submit.c's hooks); diag core and features (diagnostics.c starts the features); reduce.h
# and the kernel sets (reduce_types.h).
# host/ is three folders, each linked as one unit and built on the ones before it: acl (the
# ACL runtime), hccl (the HCCL control plane), coll (the built-in collectives). arch_host_layers
# fails on a loop between them (acl/cluster.c holds the cluster description that both the
# modelled clock and the rank graph read, so acl never calls up into hccl) and on any use,
# inside the library, of a function it exports (host/exports.map): the built-in collectives
# and the boundary files reach each other through emu_* functions, so a product rule meant for
# a user's call never refuses hcemu's own work and statuses reach the user unchanged.
# arch_host_coll: host/coll has no loop between its files either.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
    add_test(NAME arch_import_graph
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph device
                     --no-loops
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    add_test(NAME arch_host_layers
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph host
                     --folders --no-loops --exports host/exports.map
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    add_test(NAME arch_host_coll
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph host/coll
                     --no-loops
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(arch_import_graph arch_host_layers arch_host_coll PROPERTIES TIMEOUT 60
                         LABELS "arch")
endif()
