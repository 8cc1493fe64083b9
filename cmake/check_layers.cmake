# The layers depend one way: include <- kernels <- tuning <- src (runtime) <- collectives <-
# perf/examples. Each quoted #include of a folder's files must resolve to a header of a folder
# (or a single header) that folder may use (tests/ may use everything and is not checked).
#   cmake -DSOURCE_DIR=<repository> -P check_layers.cmake
cmake_minimum_required(VERSION 3.24)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_layers: SOURCE_DIR is not set")
endif()

set(roots include kernels tuning src collectives perf examples)
set(allowed_include include)
set(allowed_kernels include kernels)
set(allowed_tuning include kernels tuning)
set(allowed_src include kernels tuning src)
set(allowed_collectives include kernels tuning src collectives)
# perf links only the shared library: the public API, and the header-only registry of
# collectives (kernels/coll_algorithms.h and the collectives.def it expands) for its op table
# and --tune's grid limits. No tuning/, src/ or collectives/ header, whose code it would lack.
set(allowed_perf include perf kernels/coll_algorithms.h kernels/collectives.def)
set(allowed_examples include examples)

set(violations "")
set(n_includes 0)
foreach(layer IN LISTS roots)
  file(GLOB_RECURSE files "${SOURCE_DIR}/${layer}/*.c" "${SOURCE_DIR}/${layer}/*.h"
       "${SOURCE_DIR}/${layer}/*.cu" "${SOURCE_DIR}/${layer}/*.cuh" "${SOURCE_DIR}/${layer}/*.cpp"
       "${SOURCE_DIR}/${layer}/*.hpp")
  foreach(file IN LISTS files)
    file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    get_filename_component(dir "${file}" DIRECTORY)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" header "${line}")
      math(EXPR n_includes "${n_includes} + 1")
      set(found "")
      foreach(candidate "${dir}" ${roots})
        if(NOT IS_ABSOLUTE "${candidate}")
          set(candidate "${SOURCE_DIR}/${candidate}")
        endif()
        if(EXISTS "${candidate}/${header}")
          file(RELATIVE_PATH found "${SOURCE_DIR}" "${candidate}/${header}")
          break()
        endif()
      endforeach()
      if(NOT found)
        continue() # a system or generated header
      endif()
      string(REGEX REPLACE "/.*" "" owner "${found}")
      if(NOT owner IN_LIST allowed_${layer} AND NOT found IN_LIST allowed_${layer})
        file(RELATIVE_PATH where "${SOURCE_DIR}" "${file}")
        string(REPLACE ";" ", " may "${allowed_${layer}}")
        list(APPEND violations "${where} includes ${found} (${layer}/ may use ${may})")
      endif()
    endforeach()
  endforeach()
endforeach()
if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "check_layers: includes against the layering:\n  ${text}")
endif()
message(STATUS "check_layers: ${n_includes} quoted includes follow the layers")
