# The bad-input matrix over every public function, on the CPU.
symcoll_cpu_test(check_args_matrix ${CMAKE_CURRENT_LIST_DIR}/check_args_matrix.cpp)
target_link_libraries(check_args_matrix PRIVATE CUDA::cudart_static)

# The fuzz target over configuration and argument checks, bounded: libFuzzer for 20 s where
# SYMCOLL_SANITIZE includes fuzzer-no-link (clang), else a seeded random driver.
add_executable(fuzz_config ${CMAKE_CURRENT_LIST_DIR}/fuzz_config.cpp)
target_link_libraries(fuzz_config PRIVATE symcoll CUDA::cudart_static)
target_include_directories(fuzz_config PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tuning
                           ${PROJECT_SOURCE_DIR}/kernels ${CMAKE_CURRENT_LIST_DIR})
if(SYMCOLL_SANITIZE MATCHES "fuzzer-no-link")
  target_link_options(fuzz_config PRIVATE -fsanitize=fuzzer)
  add_test(NAME fuzz_config COMMAND fuzz_config -max_total_time=20 -seed=1 -print_final_stats=1)
else()
  target_sources(fuzz_config PRIVATE ${CMAKE_CURRENT_LIST_DIR}/fuzz_random_driver.cpp)
  add_test(NAME fuzz_config COMMAND fuzz_config 200000)
endif()
set_tests_properties(fuzz_config PROPERTIES TIMEOUT 120 LABELS fuzz)
