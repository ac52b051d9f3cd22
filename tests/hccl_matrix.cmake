# The matrix program of scripts/compat-hccl-check (scripts/compat-hccl/hccl_matrix_check.c)
# on hcemu's built-in collectives: every operator of hccl.h, every data type and, for the
# reducing ones, every reduce op, every output byte compared, at 5 rank threads and on 2
# servers of 2 devices joined through a rank table; each case must be exact or refused alike
# by every rank. (The script runs the same program against HCCL's own library, which needs
# HCCL's sources and is not part of CI.)
add_executable(hccl_matrix_check ${CMAKE_SOURCE_DIR}/scripts/compat-hccl/hccl_matrix_check.c)
target_link_libraries(hccl_matrix_check PRIVATE hcemu Threads::Threads ${CMAKE_DL_LIBS})
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/hccl_matrix_2x2.json
     "{\"version\": \"1.0\", \"server_count\": \"2\", \"status\": \"completed\", \"server_list\": [\n"
     " {\"server_id\": \"10.0.0.1\", \"device\": [{\"device_id\": \"0\", \"rank_id\": \"0\"},\n"
     "  {\"device_id\": \"1\", \"rank_id\": \"1\"}]},\n"
     " {\"server_id\": \"10.0.0.2\", \"device\": [{\"device_id\": \"0\", \"rank_id\": \"2\"},\n"
     "  {\"device_id\": \"1\", \"rank_id\": \"3\"}]}]}\n")
add_test(NAME hccl_matrix_n5 COMMAND hccl_matrix_check -t 5)
add_test(NAME hccl_matrix_2x2 COMMAND hccl_matrix_check -t 4 -c 30001 -T
         ${CMAKE_CURRENT_BINARY_DIR}/hccl_matrix_2x2.json)
set_tests_properties(hccl_matrix_n5 hccl_matrix_2x2 PROPERTIES TIMEOUT 300
    ENVIRONMENT "HCEMU_RACECHECK=1;HCCL_BUFFSIZE=1;HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=error"
    FAIL_REGULAR_EXPRESSION ": wrong bytes|: error: |data race|race checker stopped")
