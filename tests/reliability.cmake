# Dead peers: each mode in its own 2-PE run under symcoll-run --keep-going, short limits.
# The launcher's exit status is the victim's failure by design; the survivors' verdict and the
# launcher's report of the victim decide.
add_executable(dead_peer dead_peer.cpp)
target_link_libraries(dead_peer PRIVATE symcoll CUDA::cudart_static)
set(SYMCOLL_DEAD_PEER_REPORT_exit-idle "rank 1 exited with status 0 without calling symcoll_finalize while rank 0 still runs")
set(SYMCOLL_DEAD_PEER_REPORT_exit-mid "${SYMCOLL_DEAD_PEER_REPORT_exit-idle}")
set(SYMCOLL_DEAD_PEER_REPORT_rma-exit "${SYMCOLL_DEAD_PEER_REPORT_exit-idle}")
set(SYMCOLL_DEAD_PEER_REPORT_kill-mid "rank 1 killed by signal 9 [^\n]* while rank 0 still runs")
set(SYMCOLL_DEAD_PEER_REPORT_stall "PE 1 \\(stalled\\): finalize")
foreach(mode exit-idle exit-mid kill-mid stall rma-exit)
  add_test(NAME dead_peer_${mode}
           COMMAND symcoll-run -n 2 --keep-going --timeout 120 $<TARGET_FILE:dead_peer> ${mode})
  set_tests_properties(dead_peer_${mode} PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 150 LABELS gpu
    ENVIRONMENT "SYMCOLL_TIMEOUT_MS=2000;SYMCOLL_INIT_TIMEOUT_MS=4000"
    PASS_REGULAR_EXPRESSION "${SYMCOLL_DEAD_PEER_REPORT_${mode}}.*PE 0: dead-peer PASS|PE 0: dead-peer PASS.*${SYMCOLL_DEAD_PEER_REPORT_${mode}}")
endforeach()

# The soak, short: mixed traffic on two streams, every result checked, no leak, no slowdown.
add_test(NAME soak_gpu COMMAND symcoll-run -n 2 --timeout 240 $<TARGET_FILE:symcoll-perf> --soak 30)
set_tests_properties(soak_gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS gpu)
