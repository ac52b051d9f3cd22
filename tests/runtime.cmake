# The ACL runtime (issue 2): one test program per topic, each with a private job folder
# (HCEMU_JOB_DIR) so they can run in parallel. They start real executors, so each has a
# timeout; every wait inside has its own, shorter deadline.
foreach(topic memory copies streams events devices lifecycle)
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_runtime_${topic}.c)
        emu_add_test(runtime_${topic}
                     SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_runtime_${topic}.c
                             ${CMAKE_CURRENT_SOURCE_DIR}/support/rt_support.c
                     LIBS hcemu TIMEOUT 120)
    endif()
endforeach()
