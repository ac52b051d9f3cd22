# docs: the repository explains itself and its documentation agrees with the code. Fails when a
# file points at documents outside the repository; when a docs page, link, source file or
# build-tree program the docs name is missing; when the docs name an HCEMU_* variable that is
# not a setting; when README.md reaches 400 lines or stops showing docs/perf/time.svg; when a
# file carries the name of a working period or a run's date (tests/support/docs_check.sh).
add_test(NAME docs COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/support/docs_check.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(docs PROPERTIES TIMEOUT 60 LABELS "docs")
