# Halo exchange: plan geometry on the CPU; exchanges against a CPU reference on the GPU with
# 2 PEs (symcoll-run and mpirun), 1 PE, and 4 PEs sharing the GPUs there are (PMIx bootstrap).
symcoll_cpu_test(halo_geometry_test ${CMAKE_CURRENT_LIST_DIR}/halo_geometry_test.cpp)

symcoll_gpu_test(halo_gpu_test ${CMAKE_CURRENT_LIST_DIR}/halo_test.cu
                 ${CMAKE_CURRENT_LIST_DIR}/halo_device_test.cu)
set(names halo_gpu_test)
add_test(NAME halo_gpu_test_np1 COMMAND symcoll-run -n 1 --tag-output --timeout 600
         $<TARGET_FILE:halo_gpu_test>)
list(APPEND names halo_gpu_test_np1)
if(SYMCOLL_MPIRUN)
  add_test(NAME halo_gpu_test_np4 COMMAND ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS}
           -x SYMCOLL_BOOTSTRAP -x SYMCOLL_TIMEOUT_MS -np 4 $<TARGET_FILE:halo_gpu_test>)
  set_tests_properties(halo_gpu_test_np4 PROPERTIES ENVIRONMENT
                       "SYMCOLL_BOOTSTRAP=pmix;SYMCOLL_TIMEOUT_MS=60000")
  list(APPEND names halo_gpu_test_np4)
  set_tests_properties(halo_gpu_test_mpirun PROPERTIES ENVIRONMENT SYMCOLL_TIMEOUT_MS=60000)
endif()
set_tests_properties(${names} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 700 LABELS gpu)
set_tests_properties(halo_gpu_test halo_gpu_test_np1 PROPERTIES ENVIRONMENT SYMCOLL_TIMEOUT_MS=60000)
symcoll_gpu_test_wide(halo_gpu_test)
