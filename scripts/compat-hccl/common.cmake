# compat-hccl/common.cmake: helpers shared by the kernel and host glue. They read HCCL's own
# CMake files for source lists and include directories instead of repeating them here.

# hccl_sources_from(<cmake file> <dir the paths are relative to> <out var>): every
# ${CMAKE_CURRENT_SOURCE_DIR}/x.cc (or bare x.cc) in the file that is not commented out, also
# when appended (`list(APPEND src_list ${CMAKE_CURRENT_SOURCE_DIR}/x.cc)`, as HCCL adds the
# CCU template base for hcomm 9.x), except inside `if(STATIC_MODE)` (static-library only).
function(hccl_sources_from file base out)
    file(STRINGS ${file} lines)
    set(result "")
    set(static_block FALSE)
    foreach(line IN LISTS lines)
        string(STRIP "${line}" line)
        if(line MATCHES "^#")
            continue()
        endif()
        if(line MATCHES "^if\\(STATIC_MODE\\)")
            set(static_block TRUE)
        elseif(line MATCHES "^endif\\(")
            set(static_block FALSE)
        endif()
        if(line MATCHES "^list\\(APPEND [A-Za-z_]+ \\$\\{CMAKE_CURRENT_SOURCE_DIR\\}/([^ )]+\\.cc)\\)$")
            if(NOT static_block)
                list(APPEND result ${base}/${CMAKE_MATCH_1})
            endif()
        elseif(line MATCHES "^\\$\\{CMAKE_CURRENT_SOURCE_DIR\\}/([^ )]+\\.cc)")
            list(APPEND result ${base}/${CMAKE_MATCH_1})
        elseif(line MATCHES "^([A-Za-z0-9_/]+\\.cc)\\)?$")
            list(APPEND result ${base}/${CMAKE_MATCH_1})
        endif()
    endforeach()
    list(REMOVE_DUPLICATES result)
    set(${out} ${result} PARENT_SCOPE)
endfunction()

# hccl_include_list(<checkout> <out var>): the open-project INCLUDE_LIST of src/CMakeLists.txt.
function(hccl_include_list src out)
    file(STRINGS ${src}/src/CMakeLists.txt lines)
    set(result ${src}/include ${src}/src/common/hcomm_dlsym ${src}/src/common/hcomm_dlsym/ccu)
    set(inside FALSE)
    foreach(line IN LISTS lines)
        string(STRIP "${line}" line)
        if(line MATCHES "^set\\(INCLUDE_LIST")
            set(inside TRUE)
        elseif(inside AND line MATCHES "^\\)")
            break()
        elseif(inside AND line MATCHES "^\\$\\{CMAKE_CURRENT_SOURCE_DIR\\}/(.+)$")
            list(APPEND result ${src}/src/${CMAKE_MATCH_1})
        elseif(inside AND line MATCHES "^\\$\\{CMAKE_CURRENT_SOURCE_DIR\\}$")
            list(APPEND result ${src}/src)
        endif()
    endforeach()
    set(${out} ${result} PARENT_SCOPE)
endfunction()

# hcemu's headers in the places HCCL's include lines expect them, then the CANN shims.
set(HCEMU_COMPAT_INCLUDES
    ${HCEMU_INCLUDE}
    ${HCEMU_INCLUDE}/hccl
    ${HCEMU_INCLUDE}/hcomm
    ${HCEMU_INCLUDE}/acl
    ${HCEMU_INCLUDE}/pkg_inc
    ${HCEMU_INCLUDE}/pkg_inc/hccl
    ${HCEMU_INCLUDE}/pkg_inc/hcomm
    ${CMAKE_CURRENT_LIST_DIR}/shim)

set(HCEMU_COMPAT_CXX_FLAGS -O0 -g -Wno-unused-parameter -Wno-sign-compare
    -Wno-unused-variable -Wno-overloaded-virtual -Wno-missing-field-initializers
    -Wno-deprecated-declarations -fno-strict-aliasing)
