#!/usr/bin/env bash
# One-GPU machine, PEs sharing the GPU under MPS. Builds build-dev, then runs the step named by
# $1 (build, suite, wide, perf, nomps; default all). Logs under $OUT in one tarball; a summary
# last. MPS uses a private pipe directory and is restarted if a test leaves it unusable.
set -u
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NCCL_DIR=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null ||
           echo /opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl)
export LD_LIBRARY_PATH=$NCCL_DIR/lib:${LD_LIBRARY_PATH:-}
export OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/logs"
B=$PWD/build-dev; RUN=$B/src/launcher/symcoll-run; PERF=$B/perf/symcoll-perf
MPS_CHECK="$RUN -n 1 $B/examples/allreduce_stream"
. tests/device/mps.sh
STEP=${1:-all}
L=$OUT/logs

build() {
  { [ -f $B/build.ninja ] || cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DNCCL_ROOT=$NCCL_DIR; } \
    > $L/build.log 2>&1 && ninja -C $B >> $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
  echo "== build: ok"
}

# Runs every test of label $1 alone, restarting MPS after a failure that left it unusable.
run_label() {
  local label=$1 log=$2 t
  for t in $(ctest --test-dir $B -N -L "$label" | sed -n 's/^ *Test *#[0-9]*: //p'); do
    ctest --test-dir $B -R "^$t\$" --timeout ${TEST_TIMEOUT:-300} --output-on-failure >> $log 2>&1 ||
      mps_ensure
  done
  echo "passed $(grep -c '   Passed' $log), failed $(grep -cE '\*\*\*(Failed|Timeout)|Exception' $log), skipped $(grep -c '\*\*\*Skipped' $log)"
  grep -E "\*\*\*(Failed|Timeout)|Exception" $log | sed 's/^ *[0-9]*\/[0-9]* //' | head -20
}

# ctest -L gpu, 2 PEs under MPS at 50 % each; the skips with their reasons.
suite() {
  mps_start_if_shared 2; mps_ensure
  echo "== ctest -L gpu (2 PEs, MPS 50 %)"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 run_label '^gpu$' $L/ctest-gpu.log
  grep -E "\*\*\*Skipped" -A3 $L/ctest-gpu.log | grep -E "Skipped|SKIPPED|skipped" | cut -c1-200 | head -30
}

# The 4- and 8-PE labels: 4 PEs with no MPS limit (symcoll divides the GPU), 8 at 12.5 %.
wide() {
  mps_start_if_shared 4; mps_ensure
  echo "== 4pe (no MPS limit)"; run_label 4pe $L/ctest-4pe.log
  if [ "${WIDE_8:-1}" = 1 ]; then
    echo "== 8pe (12.5 %)"; CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=12.5 run_label 8pe $L/ctest-8pe.log
  fi
  mps_ensure
  SYMCOLL_DEBUG=warn timeout 300 $RUN -n 4 --timeout 240 $PERF --soak ${SOAK_SECONDS:-60} > $L/soak-4pe-nolimit.log 2>&1
  echo "soak rc=$?" >> $L/soak-4pe-nolimit.log
  echo "== soak, 4 PEs, no MPS limit"; grep -E "warn|soak|rounds|wrong|rc=" $L/soak-4pe-nolimit.log | cut -c1-220 | tail -8
}

# The one-GPU baseline: the sweep in both modes with 2 PEs at 50 %, then 4 PEs at 25 %.
perf() {
  mps_start_if_shared 2; mps_ensure
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
  SYMCOLL_DEBUG=info $RUN -n 2 $PERF --op barrier -b 8 -e 8 > $L/init-summary.txt 2>&1
  $RUN -n 2 $PERF --op all --compare nccl --csv $OUT/1xh200-2pe-mps-stream.csv > $L/perf-2pe-stream.txt 2>&1
  $RUN -n 2 $PERF --op all --compare nccl -G 20 --csv $OUT/1xh200-2pe-mps-graph.csv > $L/perf-2pe-graph.txt 2>&1
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 $RUN -n 4 $PERF --op all --compare nccl -G 20 -e ${PERF4_MAX:-128m} \
    > $L/perf-4pe-graph.txt 2>&1
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  echo "== init summary"; grep -iE "sharing|initialized" $L/init-summary.txt | cut -c1-250 | head -4
  for f in perf-2pe-stream perf-2pe-graph perf-4pe-graph; do
    echo "== $f"; grep -vE "^#|^$" $L/$f.txt | head -3; grep -E "n/a|sharing" $L/$f.txt | head -2
    grep -E "^ *(8|1048576|134217728) " $L/$f.txt | head -12
  done
}

# PEs that share the GPU without MPS: correct, one time slice per synchronization.
nomps() {
  mps_stop
  SYMCOLL_DEBUG=warn timeout 200 $RUN -n 2 --timeout 180 $B/tests/coll_reduce_test > $L/nomps-reduce.log 2>&1
  echo "rc=$?" >> $L/nomps-reduce.log
  timeout 200 $RUN -n 2 --timeout 180 $PERF --op barrier,allreduce -b 8 -e 8 -n 20 -w 2 > $L/nomps-perf.txt 2>&1
  echo "rc=$?" >> $L/nomps-perf.txt
  echo "== no MPS (time slicing)"; grep -E "warn|PASSED|FAILED|rc=" $L/nomps-reduce.log | cut -c1-250 | head -6
  grep -vE "^$" $L/nomps-perf.txt | tail -8
}

build
case $STEP in
  all) suite; wide; perf; nomps ;;
  *) for s in ${STEP//,/ }; do $s; done ;;
esac
tar -C $OUT -czf $OUT/logs-$(echo $STEP | tr , -).tgz logs 2>/dev/null && rm -rf $L
