# model: the modelled Atlas 350 clock (common/model.c, docs/MODEL.md) - simulated times of
# task graphs of known shape against their closed-form alpha-beta results.
emu_add_test(model SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_model.c
             ${CMAKE_SOURCE_DIR}/bench/model_graphs.c LIBS hcemu_common)
