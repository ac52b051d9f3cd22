# The harness HCCL's algorithm test cases compile against (tools/hccl_st, run on the real
# suite by scripts/compat-hccl-st): small cases of the same shape, against hcemu's own
# collectives. Needs googletest (libgtest-dev, in scripts/deps); skipped without it.
find_package(GTest QUIET)
if(GTest_FOUND)
    file(GLOB HCEMU_ST_SOURCES ${CMAKE_SOURCE_DIR}/tools/hccl_st/*.cc)
    add_executable(test_hccl_st ${HCEMU_ST_SOURCES} ${CMAKE_CURRENT_SOURCE_DIR}/hccl_st/st_small_cases.cc)
    target_compile_definitions(test_hccl_st PRIVATE HCEMU_ST_STANDALONE)
    target_include_directories(test_hccl_st PRIVATE ${CMAKE_SOURCE_DIR}/tools/hccl_st
                               ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/include/hccl
                               ${CMAKE_SOURCE_DIR}/include/acl)
    file(STRINGS ${CMAKE_SOURCE_DIR}/tools/hccl_st/st_wrapped_symbols.txt HCEMU_ST_WRAPPED)
    list(TRANSFORM HCEMU_ST_WRAPPED PREPEND "-Wl,--wrap=")
    target_link_options(test_hccl_st PRIVATE ${HCEMU_ST_WRAPPED})
    target_link_libraries(test_hccl_st PRIVATE GTest::gtest GTest::gtest_main hcemu
                          Threads::Threads)
    add_test(NAME hccl_st COMMAND test_hccl_st)
    set_tests_properties(hccl_st PROPERTIES TIMEOUT 300)
endif()
