# bench_memcpy: aclrtMemcpy (H2D, D2H, D2D on one device and across devices) against memcpy of
# the same sizes, measured in one run. Run: build/bin/bench_memcpy [max_bytes]
add_executable(bench_memcpy ${CMAKE_CURRENT_SOURCE_DIR}/bench_memcpy.c)
target_link_libraries(bench_memcpy PRIVATE hcemu)
