# hcemu-model-table: modelled time of AllGather and AllReduce (ring, mesh) at 8 ranks per size,
# beside the alpha-beta closed form and the vendor cost model's estimate (docs/MODEL.md).
add_executable(hcemu-model-table
    ${CMAKE_CURRENT_SOURCE_DIR}/model_table.c
    ${CMAKE_CURRENT_SOURCE_DIR}/model_graphs.c)
target_include_directories(hcemu-model-table PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(hcemu-model-table PRIVATE hcemu_common Threads::Threads)
