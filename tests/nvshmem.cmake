# NVSHMEM programs built unchanged against include/symcoll/nvshmem.h (symcoll::nvshmem), run on
# 2 PEs under symcoll-run (exit 77, skipped, without a GPU); the headers compiled as C11 and as
# C++ without nvcc; the host calls' mapping onto symcoll, on the CPU; and calls the headers
# refuse failing to compile with a message naming them.
# A program built as a user builds it, and a test that runs it (with arguments) on 2 PEs.
function(symcoll_nvshmem_program name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE symcoll::nvshmem)
  target_compile_definitions(${name} PRIVATE NVSHMEMX_SYMCOLL_NO_GPU_EXIT=77)
endfunction()
function(symcoll_nvshmem_test name program)
  add_test(NAME ${name} COMMAND symcoll-run -n ${SYMCOLL_TEST_NP} --tag-output --timeout 300
           $<TARGET_FILE:${program}> ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400 LABELS "gpu;nvshmem")
endfunction()

foreach(program ring_signal jacobi_halo collectives device_barrier device_collectives wait_variants
                quiet_on_stream)
  symcoll_nvshmem_program(nvshmem_${program} nvshmem/${program}.cu)
  symcoll_nvshmem_test(nvshmem_${program} nvshmem_${program})
endforeach()
# The per-unit handle with relocatable device code too, and in a second unit without it.
symcoll_nvshmem_program(nvshmem_ring_signal_rdc nvshmem/ring_signal.cu)
set_target_properties(nvshmem_ring_signal_rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
symcoll_nvshmem_test(nvshmem_ring_signal_rdc nvshmem_ring_signal_rdc)
symcoll_nvshmem_program(nvshmem_two_units nvshmem/two_units_main.cu nvshmem/two_units_kernels.cu)
symcoll_nvshmem_test(nvshmem_two_units nvshmem_two_units)

# NVSHMEM_SYMMETRIC_SIZE sizes the heap; SYMCOLL_SYMMETRIC_SIZE wins over it.
symcoll_nvshmem_program(nvshmem_heap_size nvshmem/heap_size.cu)
symcoll_nvshmem_test(nvshmem_heap_size_nvshmem_env nvshmem_heap_size small)
set_tests_properties(nvshmem_heap_size_nvshmem_env PROPERTIES ENVIRONMENT NVSHMEM_SYMMETRIC_SIZE=64m)
symcoll_nvshmem_test(nvshmem_heap_size_symcoll_env nvshmem_heap_size large)
set_tests_properties(nvshmem_heap_size_symcoll_env PROPERTIES
                     ENVIRONMENT "NVSHMEM_SYMMETRIC_SIZE=64m;SYMCOLL_SYMMETRIC_SIZE=256m")
symcoll_cpu_test(nvshmem_parse_size_test nvshmem/parse_size_test.cpp PUBLIC_API)
target_link_libraries(nvshmem_parse_size_test PRIVATE symcoll::nvshmem)

# nvshmemx_init_attr from an MPI communicator and from a unique id sent with MPI_Bcast.
find_package(MPI COMPONENTS C)
if(MPI_C_FOUND AND SYMCOLL_MPIRUN)
  symcoll_nvshmem_program(nvshmem_init_mpi nvshmem/init_mpi.cu)
  target_link_libraries(nvshmem_init_mpi PRIVATE MPI::MPI_C)
  foreach(mode mpi_comm uniqueid)
    add_test(NAME nvshmem_init_${mode} COMMAND ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS}
             -np ${SYMCOLL_TEST_NP} $<TARGET_FILE:nvshmem_init_mpi> ${mode})
    set_tests_properties(nvshmem_init_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                         LABELS "gpu;mpirun;nvshmem")
  endforeach()
endif()

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
    "nvshmem_ctx_create(0, 0)" "nvshmem_team_sync(0)" "nvshmem_sync(0)")
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

# The host calls' mapping onto symcoll, with the symcoll calls recorded (no GPU, no
# libsymcoll): once with the compiler's plain char, once with unsigned plain char.
foreach(variant signed_char unsigned_char)
  set(name nvshmem_host_mapping_${variant}_test)
  add_executable(${name} nvshmem/host_mapping_test.cpp)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include/symcoll
                             ${PROJECT_SOURCE_DIR}/include ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(${name} PRIVATE GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS nvshmem TIMEOUT 60)
endforeach()
target_compile_options(nvshmem_host_mapping_unsigned_char_test PRIVATE -funsigned-char)
