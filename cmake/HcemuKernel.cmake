# hcemu_add_kernel(<target> SOURCES src... ENTRIES name[=symbol]... [OUTPUT_DIR dir])
#
# Builds an AICPU kernel image (a shared object) and writes its operator-info descriptor
# <dir>/<target>.json next to it: one top-level key per entry, kernelSo = lib<target>.so,
# functionName = symbol (the entry name itself when no "=symbol" is given).
# Device API symbols (Hcomm*) stay undefined: the emulated AICPU executor provides them.
function(hcemu_add_kernel target)
    cmake_parse_arguments(K "" "OUTPUT_DIR" "SOURCES;ENTRIES" ${ARGN})
    if(NOT K_OUTPUT_DIR)
        set(K_OUTPUT_DIR ${CMAKE_BINARY_DIR}/kernels)
    endif()
    add_library(${target} SHARED ${K_SOURCES})
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${K_OUTPUT_DIR}
                          PREFIX "lib" C_VISIBILITY_PRESET default CXX_VISIBILITY_PRESET default)
    if(TARGET hcemu_headers)
        target_link_libraries(${target} PRIVATE hcemu_headers)
    elseif(TARGET hcemu::hcemu)
        target_include_directories(${target} PRIVATE
            $<TARGET_PROPERTY:hcemu::hcemu,INTERFACE_INCLUDE_DIRECTORIES>)
    endif()
    target_compile_options(${target} PRIVATE -g)
    set(json "{\n")
    set(first TRUE)
    foreach(e ${K_ENTRIES})
        string(REPLACE "=" ";" parts "${e}")
        list(GET parts 0 kname)
        list(LENGTH parts n)
        if(n GREATER 1)
            list(GET parts 1 sym)
        else()
            set(sym ${kname})
        endif()
        if(NOT first)
            string(APPEND json ",\n")
        endif()
        set(first FALSE)
        string(APPEND json "  \"${kname}\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
                           "\"kernelSo\": \"lib${target}.so\", \"functionName\": \"${sym}\"}}")
    endforeach()
    string(APPEND json "\n}\n")
    file(GENERATE OUTPUT ${K_OUTPUT_DIR}/${target}.json CONTENT "${json}")
endfunction()
