# install_check.cmake (cmake -P): install the build tree to a temporary prefix, then build a
# user project against it twice: with find_package(hcemu) and with pkg-config.
set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
    message(FATAL_ERROR "install failed")
endif()
foreach(f include/acl/acl.h include/hccl/hccl.h include/hccl/hcomm_primitives.h
          include/hcomm_primitives.h include/hcomm_res_defs.h lib/libhcemu.so lib/libascendcl.so
          lib/libhccl.so lib/libhcomm.so bin/hcemu-device lib/pkgconfig/hcemu.pc
          lib/cmake/hcemu/hcemuConfig.cmake)
    if(NOT EXISTS ${prefix}/${f})
        message(FATAL_ERROR "installed tree lacks ${f}")
    endif()
endforeach()
# The kernel link library is the one libccl_kernel.so (the device functions) in each place a
# CANN toolkit has it, and no archive that a -lccl_kernel link line could pick instead.
foreach(dir lib lib/device/lib64 devlib/device)
    if(NOT EXISTS ${prefix}/${dir}/libccl_kernel.so)
        message(FATAL_ERROR "installed tree lacks ${dir}/libccl_kernel.so")
    endif()
    if(EXISTS ${prefix}/${dir}/libccl_kernel.a)
        message(FATAL_ERROR "installed tree has a second kernel library ${dir}/libccl_kernel.a")
    endif()
    file(SHA256 ${prefix}/${dir}/libccl_kernel.so sum)
    if(DEFINED first_sum AND NOT sum STREQUAL first_sum)
        message(FATAL_ERROR "${dir}/libccl_kernel.so differs from lib/libccl_kernel.so")
    endif()
    set(first_sum ${sum})
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/consumer -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/consumer RESULT_VARIABLE rc OUTPUT_QUIET)
endif()
if(rc)
    message(FATAL_ERROR "find_package(hcemu) consumer did not build")
endif()
execute_process(COMMAND ${WORK}/consumer/consumer RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "find_package(hcemu) consumer failed to run")
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs hcemu OUTPUT_VARIABLE flags
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
separate_arguments(flags)
execute_process(COMMAND cc ${SRC}/main.c ${flags} -lascendcl -lhccl -lhcomm -o ${WORK}/pc_consumer
                RESULT_VARIABLE rc2)
if(rc OR rc2)
    message(FATAL_ERROR "pkg-config consumer did not build")
endif()
execute_process(COMMAND ${WORK}/pc_consumer RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
    message(FATAL_ERROR "pkg-config consumer failed to run")
endif()
file(REMOVE_RECURSE ${WORK})
