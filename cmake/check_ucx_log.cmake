# Runs the command after "--" and reads UCX's debug log in its output: EXPECT (a regular
# expression), where given, must appear and REFUSE, where given, must not. The command's own
# failure fails the check; its exit 77 (no PMIx or UCX) and a UCX that prints no debug lines
# (built without them) print "check_ucx_log: skipped", for ctest's SKIP_REGULAR_EXPRESSION (a
# marker of this script's own, so that no line of the command's output can turn a failure
# into a skip).
#   cmake [-DEXPECT=re] [-DREFUSE=re] -P check_ucx_log.cmake -- command args...
set(command "")
set(after_dashes FALSE)
foreach(i RANGE ${CMAKE_ARGC})
  if(after_dashes AND DEFINED CMAKE_ARGV${i})
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_dashes TRUE)
  endif()
endforeach()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(rc EQUAL 77)
  message("check_ucx_log: skipped: the command skipped (exit 77)")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the command failed: ${rc}")
endif()
if(NOT out MATCHES "UCX  DEBUG")
  message("check_ucx_log: skipped: this UCX prints no debug lines, nothing to check")
  return()
endif()
if(DEFINED EXPECT AND NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "UCX's log lacks '${EXPECT}'")
endif()
if(DEFINED REFUSE AND out MATCHES "${REFUSE}")
  message(FATAL_ERROR "UCX's log has '${REFUSE}'")
endif()
