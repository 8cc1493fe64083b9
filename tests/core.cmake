# Runtime foundation: CPU tests (environment, allocator, calls before init, fd passing, liveness,
# agreement on a status, topology, unique id, the no-GPU reasons, torchrun launch detection,
# nodes), the PMIx bootstrap and heap symmetry check under mpirun (CPU only), the runtime on the
# GPU, and one program per launch path.
foreach(area env allocator ipc topology uniqueid no_gpu liveness agree launch socket_bootstrap
        gpu_share nodes nodes_plan)
  symcoll_cpu_test(core_${area}_test ${CMAKE_CURRENT_LIST_DIR}/core_${area}_test.cpp)
endforeach()
# One GPU that cannot create a stream, by wrapping the CUDA calls init makes before the
# bootstrap (the library's objects are linked statically, so their references are wrapped).
symcoll_cpu_test(core_init_fake_gpu_test ${CMAKE_CURRENT_LIST_DIR}/core_init_fake_gpu_test.cpp)
target_link_options(core_init_fake_gpu_test PRIVATE -Wl,--wrap=cudaGetDeviceCount
                    -Wl,--wrap=cudaSetDevice -Wl,--wrap=cudaStreamCreateWithFlags)
# Init across simulated nodes (forked PEs, socket bootstrap) up to the SM share, which the test
# wraps to stop it: with the real UCX transport over TCP where it is built, its creation and
# destruction wrapped to see what init asks; and, in every build, with a src/nodes_transport.c
# compiled without UCX, which the test's own object provides, so that libsymcoll_internal's is
# never linked.
set(init_nodes_wraps -Wl,--wrap=cudaGetDeviceCount -Wl,--wrap=cudaSetDevice
    -Wl,--wrap=symcoll_gpu_share_agree)
symcoll_cpu_test(core_init_nodes_without_ucx_test ${CMAKE_CURRENT_LIST_DIR}/core_init_nodes_test.cpp
                 ${PROJECT_SOURCE_DIR}/src/nodes_transport.c)
target_link_options(core_init_nodes_without_ucx_test PRIVATE ${init_nodes_wraps})
# As the library's layers compile it (CMakeLists.txt, symcoll_layer).
target_compile_definitions(core_init_nodes_without_ucx_test PRIVATE _GNU_SOURCE)
if(UCX_INCLUDE_DIR)
  symcoll_cpu_test(core_init_nodes_test ${CMAKE_CURRENT_LIST_DIR}/core_init_nodes_test.cpp)
  target_include_directories(core_init_nodes_test PRIVATE ${UCX_INCLUDE_DIR})
  target_compile_definitions(core_init_nodes_test PRIVATE SYMCOLL_HAVE_UCX=1)
  target_link_options(core_init_nodes_test PRIVATE ${init_nodes_wraps}
                      -Wl,--wrap=symcoll_ucx_create -Wl,--wrap=symcoll_ucx_destroy)
  set_tests_properties(core_init_nodes_test PROPERTIES ENVIRONMENT UCX_TLS=tcp)
endif()
symcoll_cpu_test(core_uninitialized_test ${CMAKE_CURRENT_LIST_DIR}/core_uninitialized_test.cpp
                 PUBLIC_API SKIPPABLE Init.WithoutAGpuSaysWhichPartIsMissing)
target_compile_definitions(core_uninitialized_test PRIVATE
                           SYMCOLL_PROJECT_VERSION="${PROJECT_VERSION}")

# Own main: one PMIx bootstrap per process; exit 77 without PMIx.
symcoll_test_target(core_pmix_test ${CMAKE_CURRENT_LIST_DIR}/core_pmix_test.cpp)
if(SYMCOLL_MPIRUN)
  add_test(NAME core_pmix_test COMMAND ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS} -np 2
           $<TARGET_FILE:core_pmix_test>)
  set_tests_properties(core_pmix_test PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS mpirun)
  # A rank that stops calling: the other's PMIx fence gives up after SYMCOLL_INIT_TIMEOUT_MS.
  add_test(NAME core_pmix_timeout COMMAND ${SYMCOLL_MPIRUN} ${SYMCOLL_MPIRUN_FLAGS} -np 2
           $<TARGET_FILE:core_pmix_test> --gtest_filter=PmixTimeout.*)
  set_tests_properties(core_pmix_timeout PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS mpirun
                       ENVIRONMENT SYMCOLL_INIT_TIMEOUT_MS=1000)
  # libpmix is unloaded at the end, so LeakSanitizer can neither name nor suppress its own
  # allocations.
  if(SYMCOLL_SANITIZE)
    set_tests_properties(core_pmix_test PROPERTIES ENVIRONMENT ASAN_OPTIONS=detect_leaks=0)
    set_tests_properties(core_pmix_timeout PROPERTIES ENVIRONMENT
                         "SYMCOLL_INIT_TIMEOUT_MS=1000;ASAN_OPTIONS=detect_leaks=0")
  endif()
endif()

symcoll_gpu_test(core_gpu_test ${CMAKE_CURRENT_LIST_DIR}/core_gpu_test.cpp)
symcoll_gpu_test_wide(core_gpu_test)
target_link_libraries(core_gpu_test PRIVATE CUDA::cudart_static)

# Simulated nodes of one host (symcoll-run --nodes 2): 2 nodes of 1 PE, and 2 nodes of 2 PEs
# with the 4pe label (the wide step runs it with the GPU divided among the 4). Between the nodes
# the UCX proxy; where the build has no UCX headers, init says so and the tests skip.
# nodes_gpu_test: the nodes, RMA and the barrier; nodes_coll_test: the collectives;
# nodes_device_test: the device API's RMA through the proxy.
symcoll_test_target(nodes_gpu_test ${CMAKE_CURRENT_LIST_DIR}/nodes_gpu_test.cpp)
target_link_libraries(nodes_gpu_test PRIVATE symcoll_gpu_main CUDA::cudart_static)
symcoll_test_target(nodes_coll_test ${CMAKE_CURRENT_LIST_DIR}/nodes_coll_test.cu)
target_link_libraries(nodes_coll_test PRIVATE symcoll_gpu_main)
symcoll_test_target(nodes_device_test ${CMAKE_CURRENT_LIST_DIR}/nodes_device_test.cu)
target_link_libraries(nodes_device_test PRIVATE symcoll_gpu_main)
# Tests NAME_2pe (label gpu) and NAME_4pe (label 4pe): the program of target (with the
# arguments after it) on two nodes.
function(symcoll_nodes_test name target)
  foreach(pes 2 4)
    add_test(NAME ${name}_${pes}pe COMMAND symcoll-run -n ${pes} --nodes 2 --tag-output
             --timeout 800 $<TARGET_FILE:${target}> ${ARGN})
    set_tests_properties(${name}_${pes}pe PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
                         ENVIRONMENT SYMCOLL_TIMEOUT_MS=60000)
  endforeach()
  set_tests_properties(${name}_2pe PROPERTIES LABELS gpu)
  set_tests_properties(${name}_4pe PROPERTIES LABELS 4pe)
endfunction()
foreach(test nodes_gpu_test nodes_coll_test nodes_device_test)
  symcoll_nodes_test(${test} ${test})
endforeach()
# One hardware queue for the application's streams (CUDA_DEVICE_MAX_CONNECTIONS=1, as some
# training frameworks set): while the proxy's CUDA work shared the application's context, every
# call across nodes stalled there behind the kernels that wait for it. In a context of its own
# it must pass as at the default.
add_test(NAME nodes_gpu_test_one_queue_2pe COMMAND symcoll-run -n 2 --nodes 2 --tag-output
         --timeout 800 $<TARGET_FILE:nodes_gpu_test>)
set_tests_properties(nodes_gpu_test_one_queue_2pe PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900
                     LABELS gpu ENVIRONMENT "SYMCOLL_TIMEOUT_MS=20000;CUDA_DEVICE_MAX_CONNECTIONS=1")
# alltoallv, dispatch and combine across nodes: their own tests on two nodes, where the forced
# algorithms give way to the plan across nodes (alltoallv's test teams: WORLD, NODE, a copy of
# WORLD, the even PEs, which with 2 PEs per node are one PE of each node, and the last PE).
symcoll_nodes_test(nodes_alltoallv_test coll_alltoallv_test)
symcoll_nodes_test(nodes_moe_test coll_moe_test)
# Three nodes of one PE (label 3nodes): the combines of three inputs, alltoallv laid out over
# three nodes.
foreach(test nodes_coll_test nodes_alltoallv_test)
  string(REPLACE nodes_alltoallv_test coll_alltoallv_test target ${test})
  add_test(NAME ${test}_3nodes COMMAND symcoll-run -n 3 --nodes 3 --tag-output --timeout 800
           $<TARGET_FILE:${target}>)
  set_tests_properties(${test}_3nodes PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS 3nodes
                       ENVIRONMENT SYMCOLL_TIMEOUT_MS=60000)
endforeach()
# The halo exchange across nodes: its tests but those that take the plan's device handle, which
# a plan with neighbours on other nodes does not give out (nodes_gpu_test checks the refusal).
symcoll_nodes_test(
  nodes_halo_test halo_gpu_test
  --gtest_filter=-HaloExchange.LlLinesCrossTheir32BitWrap:HaloDevice.KernelExchangesMixWithHostExchanges:HaloDevice.StreamExchangesRewriteLlLinesThatKernelExchangesSkipped:HaloDevice.BlockTeamSum)
# What staging costs on the GPU (its table in perf/NOTES.md comes from larger sizes): as a test,
# the check of each size's last put, at small sizes.
if(UCX_INCLUDE_DIR)
  symcoll_test_target(nodes_put_bandwidth ${CMAKE_CURRENT_LIST_DIR}/nodes_put_bandwidth.cpp)
  target_link_libraries(nodes_put_bandwidth PRIVATE CUDA::cudart_static)
  add_test(NAME nodes_put_bandwidth COMMAND symcoll-run -n 2 --nodes 2 --tag-output --timeout 120
           $<TARGET_FILE:nodes_put_bandwidth> 1048576 8388608)
  set_tests_properties(nodes_put_bandwidth PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 200 LABELS gpu)
endif()

# Launch paths: each program inits its own way, checks the heap across PEs and finalizes.
add_library(core_init_check STATIC ${CMAKE_CURRENT_LIST_DIR}/init_check.cpp)
target_link_libraries(core_init_check PUBLIC symcoll CUDA::cudart_static)
foreach(program init_uniqueid init_ncclcomm core_init_env)
  add_executable(${program} ${CMAKE_CURRENT_LIST_DIR}/${program}.cpp)
  target_link_libraries(${program} PRIVATE core_init_check)
endforeach()
target_include_directories(init_ncclcomm PRIVATE ${NCCL_INCLUDE_DIR})
target_link_libraries(init_ncclcomm PRIVATE ${NCCL_LIBRARY})
foreach(program init_uniqueid init_ncclcomm)
  add_test(NAME ${program} COMMAND symcoll-run -n ${SYMCOLL_TEST_NP} --tag-output --timeout 300
           $<TARGET_FILE:${program}> ${CMAKE_CURRENT_BINARY_DIR}/${program}.id)
  set_tests_properties(${program} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400 LABELS gpu)
endforeach()

# SYMCOLL_TUNING_FILE at init: a file of this job's signature is taken, another is refused.
add_executable(tuning_file_init ${CMAKE_CURRENT_LIST_DIR}/tuning_file_init.cpp)
target_link_libraries(tuning_file_init PRIVATE core_init_check)
foreach(mode match mismatch)
  add_test(NAME tuning_file_init_${mode}
           COMMAND symcoll-run -n ${SYMCOLL_TEST_NP} --tag-output --timeout 300
                   $<TARGET_FILE:tuning_file_init> ${mode}
                   ${CMAKE_CURRENT_BINARY_DIR}/tuning_file_init_${mode}.tuning)
  set_tests_properties(tuning_file_init_${mode} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 400
                       LABELS gpu)
endforeach()

# torchrun exits 1 when its workers exit 77, so a skip is recognized by the workers' output.
find_program(SYMCOLL_TORCHRUN torchrun HINTS /opt/torch/.venv/bin)
if(SYMCOLL_TORCHRUN)
  add_test(NAME core_init_env_torchrun
           COMMAND ${SYMCOLL_TORCHRUN} --standalone --nproc_per_node=${SYMCOLL_TEST_NP} --no-python
                   $<TARGET_FILE:core_init_env>)
  set_tests_properties(core_init_env_torchrun PROPERTIES SKIP_RETURN_CODE 77
                       SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" TIMEOUT 400 LABELS "gpu;torchrun")
endif()
