# ASCConfig.cmake - find_package(ASC): the ASC language (*.asc) of a CANN toolkit,
# compiled by hcemu-cc. Enable it with project(... LANGUAGES CXX ASC).
include("${CMAKE_CURRENT_LIST_DIR}/HcemuLanguages.cmake")
set(ASC_FOUND TRUE)
