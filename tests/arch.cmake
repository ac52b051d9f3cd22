# arch: the import graph of device/ (scripts/import-graph) has no loop at all. The loops broken
# so far: sched/task/spin never call up (hooks); fault and kernel (kernel.c answers fault.c
# through struct emu_fault_locator); dp_submit with dp_cache or dp_drain (dp_drain.c sets
# dp_submit.c's hooks); diag core and features (diagnostics.c starts the features); reduce.h
# and the kernel sets (reduce_types.h).
# host/ has no loop either, and is three folders each linked as one unit and built on the
# ones before it: acl (the ACL runtime), hccl (the HCCL control plane), coll (the built-in
# collectives). arch_host_import_graph fails on any loop between host/ files; arch_host_layers
# on a loop between the folders and on any use, inside the library, of a function it exports
# (host/exports.map): the built-in collectives and the boundary files reach the rest through
# emu_* functions, so a product rule meant for a user's call never refuses hcemu's own work
# and statuses reach the user unchanged. The loops broken: acl/cluster.c holds the cluster
# description the modelled clock and the rank graph both read (acl never calls hccl);
# runtime.c is the process state and runtime_life.c starts and ends the job; struct emu_hdev
# has its own header (hdev.h); binary.c hands its image loader to its functions; stream.c
# hands its retirement wait to its argument ring and its busy check to mem.c;
# hccl_comm_life.c creates and destroys members above the resource modules; the rendezvous
# file reaches the network through struct emu_rdv_link; coll_servers.c, coll_launch.c's
# argument helpers and coll_group.c's Send/Recv keep host/coll in one direction.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
    add_test(NAME arch_import_graph
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph device
                     --no-loops
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    add_test(NAME arch_host_import_graph
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph host
                     --no-loops
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    add_test(NAME arch_host_layers
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/import-graph host
                     --folders --no-loops --exports host/exports.map
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(arch_import_graph arch_host_import_graph arch_host_layers PROPERTIES
                         TIMEOUT 60 LABELS "arch")
endif()
