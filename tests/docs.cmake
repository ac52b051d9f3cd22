# docs: the repository explains itself. Fails when a file points at documents outside the
# repository, or when a docs page named in a file or linked from README/docs/ is missing.
add_test(NAME docs COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/support/docs_check.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(docs PROPERTIES TIMEOUT 60 LABELS "docs")
