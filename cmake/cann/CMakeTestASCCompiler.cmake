# CMakeTestASCCompiler.cmake - hcemu-cc needs no probe: it drives the checked C++ compiler.
set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")
