# CMakeDetermineAICPUCompiler.cmake - project(LANGUAGES AICPU): the compiler is hcemu-cc.
include("${CMAKE_CURRENT_LIST_DIR}/HcemuLanguages.cmake")
hcemu_determine_language(AICPU aicpu)
