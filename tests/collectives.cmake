# Collectives (broadcast, reduce, fcollect, alltoall, reduce_scatter) and tuning/.
symcoll_cpu_test(tuning_select_test ${CMAKE_CURRENT_LIST_DIR}/tuning_select_test.cpp)
symcoll_cpu_test(tuning_file_test ${CMAKE_CURRENT_LIST_DIR}/tuning_file_test.cpp)
symcoll_cpu_test(tuning_override_test ${CMAKE_CURRENT_LIST_DIR}/tuning_override_test.cpp)
symcoll_cpu_test(explain_test ${CMAKE_CURRENT_LIST_DIR}/explain_test.cpp)
symcoll_cpu_test(choice_digest_test ${CMAKE_CURRENT_LIST_DIR}/choice_digest_test.cpp)
symcoll_cpu_test(coll_args_test ${CMAKE_CURRENT_LIST_DIR}/coll_args_test.cpp)
symcoll_cpu_test(coll_alltoallv_args_test ${CMAKE_CURRENT_LIST_DIR}/coll_alltoallv_args_test.cpp)
# device_coll: the device API's collectives inside test kernels, whose reduction kernels compile
# in parallel from several files.
file(GLOB device_coll_sources ${CMAKE_CURRENT_LIST_DIR}/device_coll_reduce_*.cu)
foreach(test coll_broadcast coll_reduce coll_fcollect coll_alltoall coll_reduce_scatter
        coll_alltoallv coll_moe coll_sequence device_coll)
  symcoll_gpu_test(${test}_test ${CMAKE_CURRENT_LIST_DIR}/${test}_test.cu ${${test}_sources})
  # A lost peer fails the test in a minute instead of the default five.
  set(names ${test}_test)
  if(SYMCOLL_MPIRUN)
    list(APPEND names ${test}_test_mpirun)
  endif()
  set_tests_properties(${names} PROPERTIES ENVIRONMENT SYMCOLL_TIMEOUT_MS=60000)
  symcoll_gpu_test_wide(${test}_test)
endforeach()
