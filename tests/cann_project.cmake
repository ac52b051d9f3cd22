# The miniature CANN custom-op project (tests/cann_project) builds against the installed
# toolkit layout and runs on 2 emulated devices.
add_test(NAME cann_project COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cann_project/run_test.sh
         ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/cann_project_check)
set_tests_properties(cann_project PROPERTIES TIMEOUT 300 LABELS "install;no-asan")
