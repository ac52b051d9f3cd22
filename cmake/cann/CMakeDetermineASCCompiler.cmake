# CMakeDetermineASCCompiler.cmake - project(LANGUAGES ASC): the compiler is hcemu-cc.
include("${CMAKE_CURRENT_LIST_DIR}/HcemuLanguages.cmake")
hcemu_determine_language(ASC asc)
