#!/usr/bin/env bash
# 2-GPU machine: a representative subset of the GPU tests under compute-sanitizer: memcheck
# (API errors are the tests' business: --report-api-errors no), racecheck and synccheck. The
# subset covers the heap and teams, host and device RMA, the barrier, and every collective in
# chains and graph replays, at small and medium sizes. Each run stops after
# SANITIZE_TIMEOUT seconds (default 45: 8 runs, at most 6 minutes). Logs under $OUT; the
# summary comes last: per run the exit status (86: the tool found errors, 124: timed out) and
# each PE's "ERROR SUMMARY".
B=/work/main/build-dev; T=$B/tests
RUN="$B/src/launcher/symcoll-run -n ${NP:-2} --tag-output --timeout ${SANITIZE_TIMEOUT:-45}"
SANITIZER="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
SANITIZER="$SANITIZER --error-exitcode 86 --print-limit 20"
SUMMARY=$OUT/sanitize-summary.txt
: > $SUMMARY

COLLS=(--gtest_filter='Sequence.MixedCollectivesBackToBackOnOneStream:Sequence.GraphReplayed*')
RMA=(--gtest_filter='HostRma.PutSignal*:HostRma.SignalWaitUntilEveryComparison:DeviceRma.PutSignalEveryScopeSetAndAdd:DeviceRma.FenceAndQuietOrderPutsBeforeAFlag:DeviceRma.BlockBarrierOrdersRoundsAcrossLaunches:DeviceApiRing.*')

sanitize() { # tool name program args...
  local tool=$1 name=$2; shift 2
  local extra=(); [ "$tool" = memcheck ] && extra=(--report-api-errors no)
  local log=$OUT/sanitize-$tool-$name.log start=$SECONDS
  $RUN $SANITIZER --tool $tool "${extra[@]}" "$@" > $log 2>&1
  local rc=$? errors
  errors=$(grep -ho "ERROR SUMMARY: [0-9]* error" $log | sort | uniq -c | awk '{$1=$1; print}' |
           paste -sd';')
  printf '%-9s %-8s rc=%-3s %3ss  %s  %s\n' $tool $name $rc $((SECONDS - start)) \
         "${errors:-no ERROR SUMMARY}" "$(grep -E '^\[[0-9]+\] \[  (PASSED|FAILED) ' $log |
         sort -u | paste -sd' ')" >> $SUMMARY
}

sanitize memcheck core $T/core_gpu_test
sanitize memcheck rma $T/rma_gpu "${RMA[@]}"
sanitize memcheck barrier $T/barrier_gpu --gtest_filter='BarrierOrder.*:BarrierGraph.WorldReplayed*'
sanitize memcheck colls $T/coll_sequence_test "${COLLS[@]}"
sanitize racecheck colls $T/coll_sequence_test "${COLLS[@]}"
sanitize racecheck rma $T/rma_gpu "${RMA[@]}"
sanitize synccheck colls $T/coll_sequence_test "${COLLS[@]}"
sanitize synccheck rma $T/rma_gpu "${RMA[@]}"

echo "== compute-sanitizer (rc 0 and '0 errors' on every PE is clean; logs: sanitize-*.log)"
cat $SUMMARY
