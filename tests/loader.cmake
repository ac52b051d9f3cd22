# loader: descriptor parsing, ELF inspection, import policy, symbolization, hcemu-inspect.
# The test kernels are real shared objects built here; test_loader patches copies of them to
# make the bad-ELF variants at run time.
add_library(loader_ok SHARED ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_ok.c)
target_compile_options(loader_ok PRIVATE -O0 -g) # the symbolizer test expects exact lines
add_library(loader_host_import SHARED ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_host_import.c)
target_compile_options(loader_host_import PRIVATE -g0) # the symbol+offset fallback test
add_library(loader_unknown_import SHARED
            ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_unknown_import.c)
add_library(loader_cxx SHARED ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_cxx.cpp)
# An image with its own library next to it (and a weak import nothing defines), and one
# linked against the device API library libccl_kernel.so.
add_library(loader_dep SHARED ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_dep.c)
add_library(loader_uses_dep SHARED ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_uses_dep.c)
target_link_libraries(loader_uses_dep PRIVATE loader_dep)
set_target_properties(loader_uses_dep PROPERTIES SKIP_BUILD_RPATH ON)
add_library(loader_ccl SHARED ${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_ccl.c)
target_link_libraries(loader_ccl PRIVATE hcemu_headers -Wl,--no-as-needed hcemu_ccl_kernel)
set_target_properties(loader_ccl PROPERTIES SKIP_BUILD_RPATH ON)
set_target_properties(loader_ok loader_host_import loader_unknown_import loader_cxx loader_dep
                      loader_uses_dep loader_ccl PROPERTIES
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/kernels)

emu_add_test(loader SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_loader.c
             LIBS hcemu_loader hcemu_common TIMEOUT 120)
add_dependencies(test_loader loader_ok loader_host_import loader_unknown_import loader_cxx
                 loader_dep loader_uses_dep loader_ccl)
target_compile_definitions(test_loader PRIVATE
    LOADER_OK_SO="$<TARGET_FILE:loader_ok>"
    LOADER_HOST_SO="$<TARGET_FILE:loader_host_import>"
    LOADER_UNKNOWN_SO="$<TARGET_FILE:loader_unknown_import>"
    LOADER_CXX_SO="$<TARGET_FILE:loader_cxx>"
    LOADER_USES_DEP_SO="$<TARGET_FILE:loader_uses_dep>"
    LOADER_CCL_SO="$<TARGET_FILE:loader_ccl>"
    LOADER_OK_SRC="${CMAKE_CURRENT_SOURCE_DIR}/kernels/loader_ok.c")
if(TARGET hcemu-inspect)
    add_dependencies(test_loader hcemu-inspect)
    target_compile_definitions(test_loader PRIVATE HCEMU_INSPECT="$<TARGET_FILE:hcemu-inspect>")
endif()
