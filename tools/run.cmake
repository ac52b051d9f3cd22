# hcemu-run: start the N ranks of a job as processes on one job folder. Included from
# tools/CMakeLists.txt.
add_executable(hcemu-run ${CMAKE_CURRENT_LIST_DIR}/hcemu_run.c ${CMAKE_CURRENT_LIST_DIR}/run_machine.c
                         ${CMAKE_SOURCE_DIR}/host/coll/coll_cost.c)
# coll_cost.c: the collectives' (pure) algorithm choice, for --machine's table.
target_include_directories(hcemu-run PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(hcemu-run PRIVATE hcemu_common)
install(TARGETS hcemu-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
