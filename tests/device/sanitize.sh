#!/usr/bin/env bash
# 2-GPU machine: a representative subset of the GPU tests under compute-sanitizer: memcheck
# (API errors are the tests' business: --report-api-errors no), racecheck and synccheck. The
# subset covers the heap and teams, host and device RMA, the barrier, and every collective in
# chains and graph replays, at small and medium sizes. Instrumented kernels run many times
# slower, so device waits get SYMCOLL_TIMEOUT_MS=300000, graph tests replay 20 times
# (SYMCOLL_TEST_REPLAYS), tests that need two kernels running at once on one GPU are left out
# (compute-sanitizer serializes kernels: HostRma.SignalWaitUntilEveryComparison), and each run
# stops after SANITIZE_TIMEOUT seconds (default 240); SANITIZE_JOBS runs go at once (default 3),
# and SANITIZE_RUNS picks runs by "tool-name" (default: all eight). Logs under $OUT; the summary
# comes last: per run the exit status (86: the tool found errors, 124: timed out) and each
# PE's "ERROR SUMMARY" (racecheck: "RACECHECK SUMMARY").
B=/work/main/build-dev; T=$B/tests
RUN="$B/src/launcher/symcoll-run -n ${NP:-2} --tag-output --timeout ${SANITIZE_TIMEOUT:-240}"
SANITIZER="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
SANITIZER="$SANITIZER --error-exitcode 86 --print-limit 20"
export SYMCOLL_TIMEOUT_MS=300000 SYMCOLL_TEST_REPLAYS=20
SUMMARY=$OUT/sanitize-summary.txt

COLLS="--gtest_filter=Sequence.MixedCollectivesBackToBackOnOneStream:Sequence.GraphReplayed*"
RMA="--gtest_filter=HostRma.PutSignal*:DeviceRma.PutSignalEveryScopeSetAndAdd:DeviceRma.FenceAndQuietOrderPutsBeforeAFlag:DeviceRma.BlockBarrierOrdersRoundsAcrossLaunches:DeviceApiRing.*"
BARRIER="--gtest_filter=BarrierOrder.*:BarrierGraph.WorldReplayed*"
declare -A ARGS=(
  [memcheck-core]="$T/core_gpu_test"
  [memcheck-rma]="$T/rma_gpu $RMA"
  [memcheck-barrier]="$T/barrier_gpu $BARRIER"
  [memcheck-colls]="$T/coll_sequence_test $COLLS"
  [racecheck-colls]="$T/coll_sequence_test $COLLS"
  [racecheck-rma]="$T/rma_gpu $RMA"
  [synccheck-colls]="$T/coll_sequence_test $COLLS"
  [synccheck-rma]="$T/rma_gpu $RMA")
ORDER="memcheck-core memcheck-rma memcheck-barrier memcheck-colls racecheck-colls racecheck-rma
       synccheck-colls synccheck-rma"

sanitize() { # tool-name: one line of the summary into $OUT/sanitize-tool-name.line
  local run=$1 tool=${1%%-*}
  local extra=(); [ "$tool" = memcheck ] && extra=(--report-api-errors no)
  local log=$OUT/sanitize-$run.log start=$SECONDS
  # shellcheck disable=SC2086 # ARGS holds a program and its arguments, none with spaces
  $RUN $SANITIZER --tool $tool "${extra[@]}" ${ARGS[$run]} > $log 2>&1
  local rc=$? errors
  errors=$(grep -hoE "(ERROR SUMMARY: [0-9]* error|RACECHECK SUMMARY: [0-9]* hazard)" $log |
           sort | uniq -c | awk '{$1=$1; print}' | paste -sd';')
  printf '%-18s rc=%-3s %4ss  %s  %s\n' $run $rc $((SECONDS - start)) \
         "${errors:-no ERROR SUMMARY}" "$(grep -E '^\[[0-9]+\] \[  (PASSED|FAILED) ' $log |
         sort -u | paste -sd' ')" > $OUT/sanitize-$run.line
}

RUNS=${SANITIZE_RUNS:-$ORDER}
for run in $RUNS; do
  while [ "$(jobs -rp | wc -l)" -ge "${SANITIZE_JOBS:-3}" ]; do wait -n; done
  sanitize $run &
done
wait
for run in $RUNS; do cat $OUT/sanitize-$run.line; done > $SUMMARY
echo "== compute-sanitizer (rc 0 and '0 errors' / '0 hazards' on every PE is clean; logs: sanitize-*.log)"
cat $SUMMARY
