# HcemuLanguages.cmake - the ASC and AICPU languages of a CANN toolkit, on hcemu.
# find_package(ASC) / find_package(AICPU) include this; project(... LANGUAGES CXX AICPU ASC)
# then compiles .asc (host C++ with <<<>>> launches) and .aicpu (AICPU kernels) through
# hcemu-cc with the host C++ compiler. Objects link with the C++ linker.
list(FIND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}" _hcemu_lang_known)
if(_hcemu_lang_known EQUAL -1)
    list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")
endif()
if(NOT HCEMU_CC)
    find_program(HCEMU_CC hcemu-cc
        HINTS "${CMAKE_CURRENT_LIST_DIR}/../../../bin" "${CMAKE_CURRENT_LIST_DIR}/../../bin"
        NO_DEFAULT_PATH)
endif()
if(NOT HCEMU_CC)
    message(FATAL_ERROR "hcemu-cc not found next to ${CMAKE_CURRENT_LIST_DIR}")
endif()

# Called by CMakeDetermine<LANG>Compiler.cmake: records the compiler for this build tree.
macro(hcemu_determine_language lang ext)
    set(CMAKE_${lang}_COMPILER "${HCEMU_CC}")
    set(_hcemu_lang ${lang})
    set(_hcemu_ext ${ext})
    configure_file("${CMAKE_CURRENT_LIST_DIR}/CMakeHcemuCompiler.cmake.in"
                   "${CMAKE_PLATFORM_INFO_DIR}/CMake${lang}Compiler.cmake" @ONLY)
    set(CMAKE_${lang}_COMPILER_ENV_VAR "${lang}")
endmacro()

# Called by CMake<LANG>Information.cmake: compile with hcemu-cc, link with the C++ compiler.
macro(hcemu_language_information lang ext)
    if(CMAKE_CXX_COMPILER)
        set(_hcemu_cxx "${CMAKE_CXX_COMPILER}")
    else()
        set(_hcemu_cxx "c++")
    endif()
    set(CMAKE_${lang}_OUTPUT_EXTENSION .o)
    set(CMAKE_${lang}_COMPILE_OPTIONS_PIC -fPIC)
    set(CMAKE_${lang}_COMPILE_OPTIONS_PIE -fPIE)
    set(CMAKE_SHARED_LIBRARY_${lang}_FLAGS -fPIC)
    set(CMAKE_SHARED_LIBRARY_CREATE_${lang}_FLAGS -shared)
    set(CMAKE_SHARED_LIBRARY_SONAME_${lang}_FLAG -Wl,-soname,)
    set(CMAKE_SHARED_LIBRARY_RUNTIME_${lang}_FLAG -Wl,-rpath,)
    set(CMAKE_SHARED_LIBRARY_RUNTIME_${lang}_FLAG_SEP :)
    set(CMAKE_INCLUDE_FLAG_${lang} -I)
    set(CMAKE_INCLUDE_SYSTEM_FLAG_${lang} "-isystem ")
    set(CMAKE_${lang}_FLAGS_INIT "$ENV{${lang}FLAGS} ${CMAKE_${lang}_FLAGS_INIT}")
    set(CMAKE_${lang}_FLAGS_DEBUG_INIT "-g")
    set(CMAKE_${lang}_FLAGS_RELEASE_INIT "-O2 -DNDEBUG")
    set(CMAKE_${lang}_FLAGS_RELWITHDEBINFO_INIT "-O2 -g -DNDEBUG")
    set(CMAKE_${lang}_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
    cmake_initialize_per_config_variable(CMAKE_${lang}_FLAGS "Flags used by the ${lang} compiler")
    set(CMAKE_${lang}_COMPILE_OBJECT
        "<CMAKE_${lang}_COMPILER> --lang=${ext} --cxx=${_hcemu_cxx} <DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>")
    set(CMAKE_${lang}_CREATE_SHARED_LIBRARY
        "${_hcemu_cxx} <CMAKE_SHARED_LIBRARY_${lang}_FLAGS> <LANGUAGE_COMPILE_FLAGS> <LINK_FLAGS> <CMAKE_SHARED_LIBRARY_CREATE_${lang}_FLAGS> <SONAME_FLAG><TARGET_SONAME> -o <TARGET> <OBJECTS> <LINK_LIBRARIES>")
    set(CMAKE_${lang}_CREATE_SHARED_MODULE "${CMAKE_${lang}_CREATE_SHARED_LIBRARY}")
    set(CMAKE_${lang}_LINK_EXECUTABLE
        "${_hcemu_cxx} <FLAGS> <CMAKE_${lang}_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
    set(CMAKE_${lang}_CREATE_STATIC_LIBRARY
        "<CMAKE_AR> qc <TARGET> <LINK_FLAGS> <OBJECTS>" "<CMAKE_RANLIB> <TARGET>")
    set(CMAKE_${lang}_INFORMATION_LOADED 1)
endmacro()
