# hcemu-inspect: lint an AICPU kernel image (JSON descriptor or .so) like the loader does.
# Included from tools/CMakeLists.txt.
add_executable(hcemu-inspect ${CMAKE_CURRENT_LIST_DIR}/hcemu_inspect.c)
target_link_libraries(hcemu-inspect PRIVATE hcemu_loader)
install(TARGETS hcemu-inspect RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
