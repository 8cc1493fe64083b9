# Collectives (broadcast, reduce, fcollect, alltoall) and tuning/.
symcoll_cpu_test(tuning_select_test ${CMAKE_CURRENT_LIST_DIR}/tuning_select_test.cpp)
symcoll_cpu_test(tuning_file_test ${CMAKE_CURRENT_LIST_DIR}/tuning_file_test.cpp)
symcoll_cpu_test(tuning_override_test ${CMAKE_CURRENT_LIST_DIR}/tuning_override_test.cpp)
symcoll_cpu_test(coll_args_test ${CMAKE_CURRENT_LIST_DIR}/coll_args_test.cpp)
foreach(coll broadcast reduce fcollect alltoall sequence)
  symcoll_gpu_test(coll_${coll}_test ${CMAKE_CURRENT_LIST_DIR}/coll_${coll}_test.cu)
  # A lost peer fails the test in a minute instead of the default five.
  set(names coll_${coll}_test)
  if(SYMCOLL_MPIRUN)
    list(APPEND names coll_${coll}_test_mpirun)
  endif()
  set_tests_properties(${names} PROPERTIES ENVIRONMENT SYMCOLL_TIMEOUT_MS=60000)
endforeach()
