# dataplane: the HCOMM data plane (device/dp/api_hcomm.c, device/dp/dp_*.c, host/hccl/api/api_hcomm.c).
# test_dataplane drives every call from the dp_exec kernel on 2 emulated devices, with threads
# and channels made by its fixture; the same binary with "a3" checks the A2/A3 product rules.
hcemu_add_kernel(dp_kernels SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/dp_exec.c ENTRIES dp_exec)
target_include_directories(dp_kernels PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR})

emu_add_test(dataplane SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_dataplane.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_dataplane_fixture.c
             LIBS hcemu hcemu_common m TIMEOUT 300 LABELS dataplane)
target_compile_definitions(test_dataplane PRIVATE
    DP_KERNELS_JSON="${CMAKE_BINARY_DIR}/kernels/dp_kernels.json")
add_dependencies(test_dataplane dp_kernels hcemu-device)

add_test(NAME dataplane_a3 COMMAND test_dataplane a3)
set_tests_properties(dataplane_a3 PROPERTIES TIMEOUT 120 LABELS dataplane
                     ENVIRONMENT "HCEMU_SOC=Ascend910_93")

emu_add_test(dataplane_exports SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_dataplane_exports.c
             LIBS PkgConfig::LIBELF TIMEOUT 30 LABELS dataplane)
target_compile_definitions(test_dataplane_exports PRIVATE HCEMU_DEVICE_BIN="$<TARGET_FILE:hcemu-device>")
add_dependencies(test_dataplane_exports hcemu-device)
