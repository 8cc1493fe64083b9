# Every example of examples/ runs on SYMCOLL_TEST_NP GPUs and checks its own result (exit 77,
# skipped, without a GPU).
get_property(SYMCOLL_EXAMPLE_NAMES GLOBAL PROPERTY SYMCOLL_EXAMPLES)
foreach(name IN LISTS SYMCOLL_EXAMPLE_NAMES)
  get_target_property(launcher example_${name} SYMCOLL_LAUNCHER)
  get_target_property(args example_${name} SYMCOLL_TEST_ARGS)
  if(launcher STREQUAL "mpirun")
    if(NOT SYMCOLL_MPIRUN)
      continue()
    endif()
    set(command ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS} -np ${SYMCOLL_TEST_NP})
  else()
    set(command symcoll-run -n ${SYMCOLL_TEST_NP} --tag-output --timeout 300)
  endif()
  add_test(NAME example_${name} COMMAND ${command} $<TARGET_FILE:example_${name}> ${args})
  set_tests_properties(example_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400 LABELS gpu)
endforeach()

# The command lines of the mini-apps and fused_matmul_allreduce, on the CPU: what they refuse they refuse before starting.
symcoll_cpu_test(examples_cli_test examples_cli_test.cpp PUBLIC_API)
target_compile_definitions(examples_cli_test PRIVATE
  SYMCOLL_EXAMPLE_JACOBI="$<TARGET_FILE:example_jacobi>"
  SYMCOLL_EXAMPLE_HEAT3D="$<TARGET_FILE:example_heat3d>"
  SYMCOLL_EXAMPLE_FUSED_MATMUL="$<TARGET_FILE:example_fused_matmul_allreduce>")
add_dependencies(examples_cli_test example_jacobi example_heat3d example_fused_matmul_allreduce)
