# CMakeAICPUInformation.cmake - how CMake compiles and links AICPU (*.aicpu) sources.
include("${CMAKE_CURRENT_LIST_DIR}/HcemuLanguages.cmake")
hcemu_language_information(AICPU aicpu)
