# CannLayout.cmake - the install prefix doubles as a CANN toolkit (ASCEND_HOME_PATH):
#   set_env.sh, lib64/ (-> lib), lib64/device/lib64 and devlib/device (the kernel library),
#   include/ (+ pkg_inc/, asc/include/aicpu_api/), opp/vendors/, conf/ascend_package_load.ini,
#   the ASC and AICPU CMake packages and languages, bin/hcemu-cc.
# The build tree gets bin/hcemu-cc and lib/cmake/{ASC,AICPU} too, for in-tree tests.
set(HCEMU_CC_INCLUDE ${CMAKE_SOURCE_DIR}/include)
configure_file(${CMAKE_SOURCE_DIR}/tools/hcemu-cc ${CMAKE_BINARY_DIR}/bin/hcemu-cc @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                WORLD_READ WORLD_EXECUTE)
set(HCEMU_CC_INCLUDE "")
configure_file(${CMAKE_SOURCE_DIR}/tools/hcemu-cc ${CMAKE_BINARY_DIR}/install/hcemu-cc @ONLY)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/hcemu-cc DESTINATION ${CMAKE_INSTALL_BINDIR})

file(GLOB hcemu_lang_files ${CMAKE_SOURCE_DIR}/cmake/cann/*)
foreach(pkg ASC AICPU)
    file(COPY ${hcemu_lang_files} DESTINATION ${CMAKE_BINARY_DIR}/lib/cmake/${pkg})
    install(FILES ${hcemu_lang_files} DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${pkg})
endforeach()

# Configured at install time: its fallback root (for shells without BASH_SOURCE) is the prefix
# given to `cmake --install --prefix`.
install(CODE "
    set(CMAKE_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
    configure_file(${CMAKE_SOURCE_DIR}/cmake/set_env.sh.in
                   \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/set_env.sh\" @ONLY)")
install(FILES ${CMAKE_SOURCE_DIR}/cmake/ascend_package_load.ini DESTINATION conf)
install(FILES ${CMAKE_SOURCE_DIR}/include/aicpu_api.h DESTINATION asc/include/aicpu_api)
install(CODE "
    set(root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
    file(MAKE_DIRECTORY \"\${root}/opp/vendors\")
    if(NOT EXISTS \"\${root}/lib64\")
        file(CREATE_LINK ${CMAKE_INSTALL_LIBDIR} \"\${root}/lib64\" SYMBOLIC)
    endif()
    if(NOT EXISTS \"\${root}/pkg_inc\")
        file(CREATE_LINK include/pkg_inc \"\${root}/pkg_inc\" SYMBOLIC)
    endif()")
