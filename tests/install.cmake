# The installed package works for users: find_package(hcemu), pkg-config, vendor link names.
add_test(NAME install COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR}
         -DSRC=${CMAKE_CURRENT_SOURCE_DIR}/install_consumer -DWORK=${CMAKE_BINARY_DIR}/install_check
         -P ${CMAKE_CURRENT_SOURCE_DIR}/support/install_check.cmake)
set_tests_properties(install PROPERTIES TIMEOUT 300 LABELS "install;no-asan")
