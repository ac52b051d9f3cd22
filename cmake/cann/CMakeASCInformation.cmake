# CMakeASCInformation.cmake - how CMake compiles and links ASC (*.asc) sources.
include("${CMAKE_CURRENT_LIST_DIR}/HcemuLanguages.cmake")
hcemu_language_information(ASC asc)
