# headers: ABI pins for the public headers (test_headers), plus a build-time check that every
# header under include/ compiles on its own, twice in a row, as C11 and as C++17 with the
# project's warning flags, and beside the declarations HCCL's own sources make for themselves
# (headers_hccl_decls.cpp: HCCL builds against these headers). The check is an OBJECT library in ALL, so a broken header breaks
# the build rather than only a test.

emu_add_test(headers
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_headers.c
            ${CMAKE_CURRENT_SOURCE_DIR}/headers_c_tu1.c
            ${CMAKE_CURRENT_SOURCE_DIR}/headers_c_tu2.c
            ${CMAKE_CURRENT_SOURCE_DIR}/headers_cxx.cpp
            ${CMAKE_CURRENT_SOURCE_DIR}/headers_hccl_decls.cpp
    LIBS hcemu_headers
    TIMEOUT 60)
set_target_properties(test_headers PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF
                                              CXX_STANDARD 17 CXX_EXTENSIONS OFF)

set(EMU_HEADERS_DIR ${CMAKE_SOURCE_DIR}/include)
set(EMU_HEADERS_GEN ${CMAKE_CURRENT_BINARY_DIR}/headers_standalone)
file(GLOB_RECURSE EMU_PUBLIC_HEADERS RELATIVE ${EMU_HEADERS_DIR} CONFIGURE_DEPENDS
     ${EMU_HEADERS_DIR}/*.h)
set(EMU_HEADERS_STANDALONE_SOURCES "")
foreach(h ${EMU_PUBLIC_HEADERS})
    string(MAKE_C_IDENTIFIER "${h}" id)
    # The typedef keeps the unit non-empty for headers that declare nothing.
    set(body "#include \"${h}\"\n#include \"${h}\"\ntypedef int emu_standalone_${id};\n")
    # file(CONFIGURE) rewrites only on change, so re-configuring does not rebuild everything.
    file(CONFIGURE OUTPUT ${EMU_HEADERS_GEN}/${id}.c CONTENT "${body}")
    file(CONFIGURE OUTPUT ${EMU_HEADERS_GEN}/${id}.cpp CONTENT "${body}")
    list(APPEND EMU_HEADERS_STANDALONE_SOURCES ${EMU_HEADERS_GEN}/${id}.c
                                               ${EMU_HEADERS_GEN}/${id}.cpp)
endforeach()

add_library(headers_standalone OBJECT ${EMU_HEADERS_STANDALONE_SOURCES})
# Only include/ on the path: the forwarders must resolve every inner include by themselves.
target_include_directories(headers_standalone PRIVATE ${EMU_HEADERS_DIR})
# -Wpedantic on top of the project flags: vendor users often build with it.
target_compile_options(headers_standalone PRIVATE -Wall -Wextra -Wpedantic -Werror)
set_target_properties(headers_standalone PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                                    C_EXTENSIONS OFF CXX_STANDARD 17
                                                    CXX_STANDARD_REQUIRED ON
                                                    CXX_EXTENSIONS OFF)
