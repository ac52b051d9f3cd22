# AICPUConfig.cmake - find_package(AICPU): the AICPU language (*.aicpu) of a CANN toolkit,
# compiled by hcemu-cc. Enable it with project(... LANGUAGES CXX AICPU).
include("${CMAKE_CURRENT_LIST_DIR}/HcemuLanguages.cmake")
set(AICPU_FOUND TRUE)
