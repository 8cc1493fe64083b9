# symcoll-perf on the CPU: flags, size lists, bandwidth formulas, the CSV and table, the check's
# reference, alltoallv's count matrix, --op moe's routing and check, --explain, --tune's rows,
# the topology text, PEs sharing a GPU; and the built program itself (--help, --explain, bad flags, no GPU).
foreach(name perf_args_test perf_report_test perf_baseline_test perf_check_test perf_explain_test
             perf_tune_test perf_soak_test perf_gpu_sharing_test perf_topology_text_test
             perf_counts_test perf_moe_test)
  symcoll_cpu_test(${name} ${name}.cpp PUBLIC_API)
  target_link_libraries(${name} PRIVATE symcoll_perf_core)
endforeach()

# One program, two tests: the no-GPU case skips on a GPU machine without hiding the others.
symcoll_test_target(perf_cli_test perf_cli_test.cpp PUBLIC_API)
target_link_libraries(perf_cli_test PRIVATE GTest::gtest_main CUDA::cudart_static)
target_compile_definitions(perf_cli_test PRIVATE SYMCOLL_PERF_EXE="$<TARGET_FILE:symcoll-perf>")
add_dependencies(perf_cli_test symcoll-perf)
add_test(NAME perf_cli_test COMMAND perf_cli_test --gtest_filter=-PerfCli.SweepWithoutAGpuExits77)
add_test(NAME perf_cli_no_gpu_test COMMAND perf_cli_test
         --gtest_filter=PerfCli.SweepWithoutAGpuExits77)
set_tests_properties(perf_cli_test perf_cli_no_gpu_test PROPERTIES
  SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" TIMEOUT 300)
