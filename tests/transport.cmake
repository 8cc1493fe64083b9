# The UCX transport alone (src/transport/ucx), on host memory on the CPU under mpirun with the
# PMIx bootstrap, over TCP and over shared memory, with 2 and 3 PEs; exit 77 (skipped) without
# PMIx or UCX. Built only where the UCX headers are (the transport is built only there).
if(UCX_INCLUDE_DIR)
  symcoll_test_target(transport_ucx_test ${CMAKE_CURRENT_LIST_DIR}/transport_ucx_test.cpp)
  target_include_directories(transport_ucx_test PRIVATE ${UCX_INCLUDE_DIR})
endif()
if(UCX_INCLUDE_DIR AND SYMCOLL_MPIRUN)
  set(ucx_tests transport_ucx_timeout)
  foreach(tls tcp sm)
    foreach(np 2 3)
      add_test(NAME transport_ucx_${tls}_${np}pe
               COMMAND ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS} -np ${np} -x UCX_TLS=${tls}
                       $<TARGET_FILE:transport_ucx_test> --gtest_filter=-UcxTimeout.*)
      set_tests_properties(transport_ucx_${tls}_${np}pe PROPERTIES SKIP_RETURN_CODE 77
                           TIMEOUT 120 LABELS "mpirun;ucx")
      list(APPEND ucx_tests transport_ucx_${tls}_${np}pe)
    endforeach()
  endforeach()
  # PE 1 stops progressing: PE 0's quiet gives up, naming it (over TCP only, where a put
  # needs its target's progress).
  add_test(NAME transport_ucx_timeout
           COMMAND ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS} -np 2 -x UCX_TLS=tcp
                   $<TARGET_FILE:transport_ucx_test> --gtest_filter=UcxTimeout.*)
  set_tests_properties(transport_ucx_timeout PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
                       LABELS "mpirun;ucx")
  # libucp and libpmix keep allocations to the end of the process that LeakSanitizer can
  # neither name nor suppress (libpmix is unloaded at the end; libucp's frames have no symbols),
  # as for core_pmix_test.
  if(SYMCOLL_SANITIZE)
    set_tests_properties(${ucx_tests} PROPERTIES ENVIRONMENT ASAN_OPTIONS=detect_leaks=0)
  endif()
endif()
