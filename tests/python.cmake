# The Python package (python/): its pure parts with pytest on any machine, and its GPU tests in
# a job of SYMCOLL_TEST_NP PEs. Both load the library from this build (SYMCOLL_LIBRARY). Without
# pytest they report skipped (exit 77), never passed.
# A sanitizer build's library cannot load into an interpreter built without the sanitizer.
if(SYMCOLL_SANITIZE)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest" RESULT_VARIABLE SYMCOLL_NO_PYTEST
                  OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT Python3_Interpreter_FOUND OR SYMCOLL_NO_PYTEST)
  foreach(name python_pure python_gpu)
    add_test(NAME ${name} COMMAND sh -c
             "echo 'skipped: no python3 with pytest at configure time (pip install pytest)'; exit 77")
    set_tests_properties(${name} PROPERTIES LABELS python SKIP_RETURN_CODE 77)
  endforeach()
  return()
endif()
set(SYMCOLL_PYTEST ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider)
# The C layouts of the structures ctypes mirrors, for test_capi.py.
add_executable(python_layout_probe ${CMAKE_CURRENT_LIST_DIR}/python_layout_probe.c)
target_include_directories(python_layout_probe PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(python_layout_probe PRIVATE CUDA::toolkit)
add_test(NAME python_pure COMMAND ${SYMCOLL_PYTEST} --ignore=${PROJECT_SOURCE_DIR}/python/tests/test_gpu.py
         ${PROJECT_SOURCE_DIR}/python/tests)
set_tests_properties(python_pure PROPERTIES LABELS python TIMEOUT 120 ENVIRONMENT
  "SYMCOLL_LIBRARY=$<TARGET_FILE:symcoll>;SYMCOLL_LAYOUT_PROBE=$<TARGET_FILE:python_layout_probe>")
add_test(NAME python_gpu COMMAND symcoll-run -n ${SYMCOLL_TEST_NP} --tag-output --timeout 900
         ${SYMCOLL_PYTEST} ${PROJECT_SOURCE_DIR}/python/tests/test_gpu.py)
set_tests_properties(python_gpu PROPERTIES LABELS "gpu;python" TIMEOUT 1000 SKIP_RETURN_CODE 77
                     ENVIRONMENT "SYMCOLL_LIBRARY=$<TARGET_FILE:symcoll>;SYMCOLL_PYTEST_SKIP_CODE=77")
