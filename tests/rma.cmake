# RMA, device API and barrier tests.
symcoll_cpu_test(check_rma_args check_rma_args.cpp)

symcoll_gpu_test(rma_gpu rma_host.cu rma_args.cu device_api_rma.cu device_api_ring.cu)
symcoll_gpu_test(barrier_gpu barrier_order.cu barrier_graph.cu)
symcoll_gpu_test_wide(rma_gpu)
symcoll_gpu_test_wide(barrier_gpu)

# Timeouts break teams for good, so each runs in its own processes with a short limit.
foreach(name barrier_timeout rma_timeout)
  symcoll_gpu_test(${name}_gpu ${name}.cu)
  set_tests_properties(${name}_gpu PROPERTIES ENVIRONMENT SYMCOLL_TIMEOUT_MS=2000 TIMEOUT 120)
  if(SYMCOLL_MPIRUN)
    set_tests_properties(${name}_gpu_mpirun PROPERTIES ENVIRONMENT SYMCOLL_TIMEOUT_MS=2000
                         TIMEOUT 120)
  endif()
endforeach()
