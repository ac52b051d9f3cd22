# fault: hcemu-fault-driver and the misbehaving kernels that scripts/fault-table runs (each
# fault N times: leftovers in the job folder's parent, orphan processes, exit status, report).
# Not a test: run scripts/fault-table BUILD_DIR [REPS].
hcemu_add_kernel(fault_kernels SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fault_kernels.c
                 ENTRIES fault_fork fault_exit fault_spin)
hcemu_add_kernel(fault_ctor SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fault_ctor.c
                 ENTRIES fault_ctor)
add_executable(hcemu-fault-driver ${CMAKE_CURRENT_SOURCE_DIR}/fault_driver.c)
target_link_libraries(hcemu-fault-driver PRIVATE hcemu Threads::Threads)
add_dependencies(hcemu-fault-driver fault_kernels fault_ctor hcemu-device)
