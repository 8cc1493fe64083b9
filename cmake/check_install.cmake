# Installs the build into a fresh PREFIX, then checks what a user gets there: the installed
# library exports exactly the SYMCOLL_API functions of the installed headers, and the
# installed programs find the library through their RUNPATH.
#   cmake -DBUILD_DIR=build -DPREFIX=/tmp/x -DNM=nm -DREADELF=readelf -DLIBDIR=lib
#         -DPROGRAMS="bin/symcoll-perf;..." -P check_install.cmake
cmake_minimum_required(VERSION 3.24)
foreach(var BUILD_DIR PREFIX NM READELF LIBDIR PROGRAMS)
  if(NOT ${var})
    message(FATAL_ERROR "check_install: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE error)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "check_install: cmake --install failed: ${error}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -DNM=${NM} -DLIBRARY=${PREFIX}/${LIBDIR}/libsymcoll.so
                        -DINCLUDE_DIR=${PREFIX}/include -P ${CMAKE_CURRENT_LIST_DIR}/check_exports.cmake
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "check_install: the installed library and headers disagree")
endif()
foreach(program IN LISTS PROGRAMS)
  if(NOT EXISTS "${PREFIX}/${program}")
    message(FATAL_ERROR "check_install: ${program} was not installed")
  endif()
  execute_process(COMMAND ${READELF} -d "${PREFIX}/${program}" OUTPUT_VARIABLE dynamic)
  if(NOT dynamic MATCHES "R(UN)?PATH[^\n]*\\$ORIGIN/\\.\\./[^\n]*${LIBDIR}")
    message(FATAL_ERROR "check_install: ${program} has no $ORIGIN-relative RUNPATH to "
                        "${LIBDIR}:\n${dynamic}")
  endif()
endforeach()
message(STATUS "check_install: ${PREFIX} has the public ABI, and ${PROGRAMS} find the library")
