# sym_win: symmetric windows (HcclCommSymWinRegister, Deregister, Get and the device-side
# HcclSymWinGetPeerPointer) on 2 and 4 ranks as threads: lookups and offsets, the peer pointer
# used as the remote end of a one-sided write that the peer then finds in its window, and
# every refusal with its code. Run on the 950 (default), on A3, and on A2, which has none.
hcemu_add_kernel(symwin_put SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/symwin_put.c
                 ENTRIES symwin_put)
target_include_directories(symwin_put PRIVATE ${CMAKE_SOURCE_DIR}/include)
emu_add_test(sym_win SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sym_win.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 180)
add_dependencies(test_sym_win symwin_put hcemu-device)
target_compile_definitions(test_sym_win PRIVATE KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels")
foreach(fam a3:Ascend910_9391 a2:Ascend910B1)
    string(REPLACE ":" ";" f ${fam})
    list(GET f 0 tag)
    list(GET f 1 soc)
    add_test(NAME sym_win_soc_${tag} COMMAND test_sym_win)
    set_tests_properties(sym_win_soc_${tag} PROPERTIES TIMEOUT 180 ENVIRONMENT
                         "TEST_SYMWIN_SOC=${soc}")
endforeach()
