# The bad-input matrix over every public function, on the CPU.
symcoll_cpu_test(check_args_matrix ${CMAKE_CURRENT_LIST_DIR}/check_args_matrix.cpp
                 SKIPPABLE ArgsMatrix.BadStream)

# The fuzz target over configuration and argument checks, bounded: libFuzzer for 20 s where
# SYMCOLL_SANITIZE includes fuzzer-no-link (clang), else a seeded random driver. Inputs that
# once failed live in tests/fuzz_inputs/ and run first; libFuzzer writes new ones into the
# build folder, never into the source tree.
symcoll_test_target(fuzz_config ${CMAKE_CURRENT_LIST_DIR}/fuzz_config.cpp)
file(GLOB SYMCOLL_FUZZ_INPUTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fuzz_inputs/*)
if(SYMCOLL_SANITIZE MATCHES "fuzzer-no-link")
  target_link_options(fuzz_config PRIVATE -fsanitize=fuzzer)
  add_test(NAME fuzz_config_inputs
           COMMAND fuzz_config -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/ ${SYMCOLL_FUZZ_INPUTS})
  add_test(NAME fuzz_config COMMAND fuzz_config -max_total_time=20 -seed=1 -print_final_stats=1
                                    -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/)
else()
  target_sources(fuzz_config PRIVATE ${CMAKE_CURRENT_LIST_DIR}/fuzz_random_driver.cpp)
  add_test(NAME fuzz_config_inputs COMMAND fuzz_config 0 ${SYMCOLL_FUZZ_INPUTS})
  add_test(NAME fuzz_config COMMAND fuzz_config 50000)
endif()
set_tests_properties(fuzz_config fuzz_config_inputs PROPERTIES TIMEOUT 120 LABELS fuzz)

# docs/env.md and the README's settings list are generated from src/env.def:
# `cmake --build build --target env-doc` rewrites them, env_doc_current fails when they are stale.
add_executable(env_doc ${CMAKE_CURRENT_LIST_DIR}/env_doc.c)
target_link_libraries(env_doc PRIVATE symcoll_internal)
add_test(NAME env_doc_current COMMAND env_doc check ${PROJECT_SOURCE_DIR})
add_custom_target(env-doc COMMAND env_doc write ${PROJECT_SOURCE_DIR}
                  COMMENT "docs/env.md and the README's settings list from src/env.def")
