# Install.cmake - the package: libraries, headers, executables, CMake config and pkg-config.
include(CMakePackageConfigHelpers)
install(EXPORT hcemuTargets NAMESPACE hcemu:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hcemu)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/hcemuConfig.cmake.in
    ${CMAKE_BINARY_DIR}/hcemuConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hcemu
    PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/hcemuConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/hcemuConfig.cmake ${CMAKE_BINARY_DIR}/hcemuConfigVersion.cmake
    ${CMAKE_SOURCE_DIR}/cmake/HcemuKernel.cmake
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hcemu)
configure_file(${CMAKE_SOURCE_DIR}/cmake/hcemu.pc.in ${CMAKE_BINARY_DIR}/hcemu.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/hcemu.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
