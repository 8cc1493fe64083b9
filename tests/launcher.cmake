# symcoll-run: a CPU test driving the launcher with a scripted child program.
add_executable(launcher_child ${CMAKE_CURRENT_LIST_DIR}/launcher_child.c)
symcoll_cpu_test(launcher_test ${CMAKE_CURRENT_LIST_DIR}/launcher_test.cpp
                 SKIPPABLE Launcher.SignalsNoGroupWhoseRankItReaped)
target_compile_definitions(launcher_test PRIVATE
  SYMCOLL_RUN_PATH="$<TARGET_FILE:symcoll-run>"
  LAUNCHER_CHILD_PATH="$<TARGET_FILE:launcher_child>")
add_dependencies(launcher_test symcoll-run launcher_child)
