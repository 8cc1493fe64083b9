# The build itself: architectures of the device code (no GPU needed).
add_test(NAME build_cuda_architectures
         COMMAND ${CMAKE_COMMAND} -DCOMPILE_COMMANDS=${PROJECT_BINARY_DIR}/compile_commands.json
                 -DMIN_ARCH=${SYMCOLL_MIN_CUDA_ARCH}
                 -P ${PROJECT_SOURCE_DIR}/cmake/check_cuda_architectures.cmake)
find_program(SYMCOLL_CUOBJDUMP cuobjdump HINTS ${CUDAToolkit_BIN_DIR})
if(NOT SYMCOLL_CUOBJDUMP)
  message(STATUS "build_fatbin_* tests: skipped, this CUDA toolkit has no cuobjdump")
endif()
foreach(target symcoll symcoll-perf)
  add_test(NAME build_fatbin_${target}
           COMMAND ${CMAKE_COMMAND} -DCUOBJDUMP=${SYMCOLL_CUOBJDUMP} -DBINARY=$<TARGET_FILE:${target}>
                   -DMIN_ARCH=${SYMCOLL_MIN_CUDA_ARCH}
                   -P ${PROJECT_SOURCE_DIR}/cmake/check_fatbin_architectures.cmake)
  set_tests_properties(build_fatbin_${target} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
endforeach()
