# hcemu-run: start the N ranks of a job as processes on one job folder. Included from
# tools/CMakeLists.txt.
add_executable(hcemu-run ${CMAKE_CURRENT_LIST_DIR}/hcemu_run.c)
target_link_libraries(hcemu-run PRIVATE hcemu_common)
install(TARGETS hcemu-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
