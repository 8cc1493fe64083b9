# NVSHMEM programs built unchanged against include/symcoll/nvshmem.h (symcoll::nvshmem), run on
# 2 PEs under symcoll-run (exit 77, skipped, without a GPU); the headers compiled as C11 and as
# C++ without nvcc; and calls the headers refuse failing to compile with a message naming them.
set(SYMCOLL_NVSHMEM_PROGRAMS ring_signal jacobi_halo collectives device_barrier)
function(symcoll_nvshmem_program name source)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE symcoll::nvshmem)
  target_compile_definitions(${name} PRIVATE NVSHMEMX_SYMCOLL_NO_GPU_EXIT=77)
  add_test(NAME ${name} COMMAND symcoll-run -n ${SYMCOLL_TEST_NP} --tag-output --timeout 300
           $<TARGET_FILE:${name}>)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400 LABELS "gpu;nvshmem")
endfunction()
foreach(program IN LISTS SYMCOLL_NVSHMEM_PROGRAMS)
  symcoll_nvshmem_program(nvshmem_${program} nvshmem/${program}.cu)
endforeach()
# The per-unit handle with relocatable device code too.
symcoll_nvshmem_program(nvshmem_ring_signal_rdc nvshmem/ring_signal.cu)
set_target_properties(nvshmem_ring_signal_rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON)

add_library(nvshmem_header_c OBJECT nvshmem/header_c.c)
set_target_properties(nvshmem_header_c PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
add_library(nvshmem_header_cpp OBJECT nvshmem/header_cpp.cpp)
foreach(target nvshmem_header_c nvshmem_header_cpp)
  target_link_libraries(${target} PRIVATE symcoll::nvshmem)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -pedantic)
endforeach()

# Each refused call, compiled as C: the test passes when the compiler names it.
set(SYMCOLL_NVSHMEM_REFUSED
    "nvshmemx_collective_launch(0, 1, 1, 0, 0, 0)" "nvshmem_team_split_2d(0, 1, 0, 0, 0, 0, 0, 0)"
    "nvshmem_team_split_strided(0, 0, 1, 1, 0, 0, 0)" "nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, 0)"
    "nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM, 0)" "nvshmemx_buffer_register(0, 0)"
    "nvshmem_ctx_create(0, 0)")
foreach(call IN LISTS SYMCOLL_NVSHMEM_REFUSED)
  string(REGEX REPLACE "\\(.*" "" function "${call}")
  string(REGEX MATCH "NVSHMEMX_INIT_WITH_[A-Z_]+" flag "${call}")
  set(named ${function})
  if(flag)
    set(named ${flag})
  endif()
  add_test(NAME nvshmem_refuses_${named}
           COMMAND ${CMAKE_C_COMPILER} -std=c11 -fsyntax-only
                   -I${PROJECT_SOURCE_DIR}/include/symcoll -I${PROJECT_SOURCE_DIR}/include
                   -I${CUDAToolkit_INCLUDE_DIRS} "-DREFUSED_CALL=${call}"
                   ${CMAKE_CURRENT_SOURCE_DIR}/nvshmem/refused.c)
  set_tests_properties(nvshmem_refuses_${named} PROPERTIES LABELS nvshmem TIMEOUT 60
    PASS_REGULAR_EXPRESSION "${named} is not supported by the symcoll NVSHMEM header")
endforeach()
