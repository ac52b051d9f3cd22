# hcemu-model-table: hcemu's built-in AllReduce and AllGather, every algorithm, at 8 ranks
# with HCEMU_TIME=model, per size beside the vendor cost model's formula (docs/MODEL.md).
add_executable(hcemu-model-table ${CMAKE_CURRENT_SOURCE_DIR}/model_table.c)
target_link_libraries(hcemu-model-table PRIVATE hcemu Threads::Threads)
add_dependencies(hcemu-model-table hcemu-device)
