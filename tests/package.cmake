# Kernel images inside installed AICPU packages (host/acl/package.c), on packages the test makes.
emu_add_test(package SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_package.c
             ${CMAKE_SOURCE_DIR}/host/acl/package.c ${CMAKE_SOURCE_DIR}/host/acl/package_ini.c
             ${CMAKE_SOURCE_DIR}/host/acl/archive_lib.c
             LIBS hcemu_common PkgConfig::LIBARCHIVE ${CMAKE_DL_LIBS})
