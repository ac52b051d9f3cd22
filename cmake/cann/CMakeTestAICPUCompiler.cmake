# CMakeTestAICPUCompiler.cmake - hcemu-cc needs no probe: it drives the checked C++ compiler.
set(CMAKE_AICPU_COMPILER_WORKS 1 CACHE INTERNAL "")
