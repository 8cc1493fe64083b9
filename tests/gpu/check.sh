#!/usr/bin/env bash
# The GPU checks, from any checkout and build folder, on any number of GPUs:
#
#   tests/gpu/check.sh BUILD_DIR [LOG_DIR] [STEP,...]
#
# Steps (default suite,wide,sanitize,perf):
#   suite     ctest -L gpu, every test alone, with the build's SYMCOLL_TEST_NP PEs (default 2)
#   wide      the 4pe and 8pe labels: 4 PEs with no MPS limit (init divides the GPU), 8 at
#             100/8 %; then symcoll-perf --soak (SOAK_SECONDS, default 60) with 4 PEs, no limit
#   sanitize  a subset of the GPU tests under compute-sanitizer (memcheck, racecheck, synccheck),
#             MPS stopped: the tools serialize kernels, so PEs of one GPU take turns
#   perf      the sweep in stream and graph mode beside NCCL (n/a where PEs share a GPU), CSVs
#             that --baseline reads; with BASE_BUILD, interleaved with that build's sweep and
#             compared point by point (an A/B in one run); then --op halo, the in-kernel syncs and
#             collectives (--op dev_*), and examples/fused_matmul_allreduce at 4096
#   ab        with BASE_BUILD: AB_ROUNDS (default 4) rounds of a graph-mode sweep of BASE_BUILD
#             then of BUILD_DIR, each compared point by point with the one before it: an effect
#             that every round shows is the change's, one that comes and goes is drift
#   nomps     PEs sharing a GPU without MPS (time slicing): correct, one time slice a sync
#   floor     tools that measure one thing: graph_floor.cu, flag_offsets.cu
#   nodes     two simulated nodes (symcoll-run --nodes 2): the nodes_* tests with 1 and 2 PEs per
#             node, and those of label 3nodes on three nodes of 1 PE; then symcoll-perf in stream
#             and graph mode: 1 PE per node, 2 PEs per node (WORLD, and --team peers beside NCCL:
#             a team per local rank, alltoallv too), and 1 PE per node beside NCCL over its
#             socket transport (NCCL_HOSTID per rank, P2P and SHM off) (NODES_MAXBYTES, default
#             16m, the largest size)
#   nodes_ab  with BASE_BUILD: AB_ROUNDS (default 4) rounds, on 2 nodes of 1 PE, of BASE_BUILD's
#             symcoll-perf and then this build's, in stream and in graph mode, each compared
#             point by point with the one before it (the nodes sweep's operations and sizes)
#   nodes_bw  BW_ROUNDS (default 3) runs of nodes_put_bandwidth on 2 nodes of 1 PE (64 KiB to
#             16 MiB, 256 MiB a point, 3 pairs of raw UCX then the proxy each): each run's table,
#             then per size the median ratio to raw UCX over every pair and the pairs below 0.8
#   python    the Python package's GPU tests (python/tests/test_gpu.py) with NP and 4 PEs, each
#             under symcoll-run, mpirun and torchrun (init over a gloo process group); then
#             python -m symcoll.bench with NP PEs and with one PE under torchrun (NCCL and
#             SymmetricMemory beside it); python3 must have torch and pytest (PYTHONPATH may
#             name carried pure-Python wheels)
# When PEs outnumber the GPUs, MPS runs with a private pipe directory, each PE gets
# CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100/PEs (except where a step says otherwise), and a test that
# leaves the server refusing clients gets it restarted. NCCL must be on LD_LIBRARY_PATH for the
# NCCL columns. Logs go to LOG_DIR (default gpu-logs); a summary is printed last. TESTS (a
# ctest -R regex) narrows the ctest steps (suite, the labels of wide), to split them over runs.
set -u
[ $# -ge 1 ] || { sed -n '2,42p' "$0"; exit 2; }
B=$(cd "$1" && pwd) || exit 2
L=$(mkdir -p "${2:-gpu-logs}" && cd "${2:-gpu-logs}" && pwd) || exit 2
STEPS=${3:-suite,wide,sanitize,perf}
HERE=$(cd "$(dirname "$0")" && pwd)
# The PEs of the suite's tests: the build's SYMCOLL_TEST_NP (CMake cache), 2 by default.
NP=$(sed -n 's/^SYMCOLL_TEST_NP:STRING=//p' "$B/CMakeCache.txt" 2>/dev/null)
NP=${NP:-2}
RUN=$B/launcher/symcoll-run
PERF=$B/perf/symcoll-perf
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$GPUS" -ge 1 ] || { echo "check.sh: no GPU here"; exit 77; }
export MPS_CHECK="$RUN -n 1 $B/examples/allreduce_stream"
# shellcheck source=tests/gpu/mps.sh
. "$HERE/mps.sh"

# MPS and each PE's share in SHARE (empty when no GPU is shared), for a job of $1 PEs. Not to be
# called in a subshell: MPS's pipe directory must reach the PEs that this shell starts.
share_for() {
  local pes=$1
  SHARE=
  if [ "$pes" -gt "$GPUS" ]; then
    [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || mps_start
    mps_ensure
    SHARE=$(awk -v p="$pes" -v g="$GPUS" 'BEGIN { printf "%g", 100 * g / p }')
  fi
}

# Every test of label $1 (and of TESTS, a ctest -R regex, when set) alone, logged into $2;
# MPS restarted after a failure that broke it.
run_label() {
  local label=$1 log=$2 t
  for t in $(ctest --test-dir "$B" -N -L "$label" -R "${TESTS:-.}" | sed -n 's/^ *Test *#[0-9]*: //p'); do
    ctest --test-dir "$B" -R "^$t\$" --timeout "${TEST_TIMEOUT:-300}" --output-on-failure \
      >> "$log" 2>&1 || mps_ensure
  done
  echo "passed $(grep -c '   Passed' "$log"), failed $(grep -cE '\*\*\*(Failed|Timeout)|Exception' "$log"), skipped $(grep -c '\*\*\*Skipped' "$log")"
  grep -hE '\*\*\*(Failed|Timeout)|Exception' "$log" | sed 's/^ *[0-9]*\/[0-9]* //' | head -20
}

suite() {
  share_for "$NP"
  local pct=$SHARE
  echo "== ctest -L gpu ($NP PEs on $GPUS GPUs${pct:+, MPS $pct %})"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${pct:-100} run_label '^gpu$' "$L/ctest-gpu.log"
}

wide() {
  share_for 4
  echo "== ctest -L 4pe (no MPS limit)"; run_label 4pe "$L/ctest-4pe.log"
  share_for 8
  local pct=$SHARE
  echo "== ctest -L 8pe${pct:+ (MPS $pct %)}"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${pct:-100} run_label 8pe "$L/ctest-8pe.log"
  share_for 4
  SYMCOLL_DEBUG=warn timeout $((${SOAK_SECONDS:-60} + 120)) "$RUN" -n 4 \
    --timeout $((${SOAK_SECONDS:-60} + 100)) "$PERF" --soak "${SOAK_SECONDS:-60}" > "$L/soak-4pe.log" 2>&1
  echo "== soak, 4 PEs, no MPS limit: rc=$?"; grep -E "soak|wrong" "$L/soak-4pe.log" | tail -3
}

sanitize() {
  mps_stop
  local sanitizer tests=$B/tests run tool log rc
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  local colls="--gtest_filter=Sequence.MixedCollectivesBackToBackOnOneStream:Sequence.GraphReplayed*"
  local rma="--gtest_filter=HostRma.PutSignal*:DeviceRma.PutSignalEveryScopeSetAndAdd:DeviceRma.FenceAndQuietOrderPutsBeforeAFlag:DeviceApiRing.*"
  local barrier="--gtest_filter=BarrierOrder.*:BarrierGraph.WorldReplayed*"
  echo "== compute-sanitizer ($NP PEs; rc 0 and '0 errors' on every PE is clean)"
  for run in "memcheck core_gpu_test" "memcheck rma_gpu $rma" "memcheck barrier_gpu $barrier" \
             "memcheck coll_sequence_test $colls" "racecheck coll_sequence_test $colls" \
             "synccheck coll_sequence_test $colls"; do
    # shellcheck disable=SC2086 # a run is a tool, a test program and its filter, no spaces
    set -- $run
    tool=$1
    shift
    log="$L/sanitize-$tool-$1.log"
    local extra=(); [ "$tool" = memcheck ] && extra=(--report-api-errors no)
    SYMCOLL_TIMEOUT_MS=300000 SYMCOLL_TEST_REPLAYS=20 timeout "${SANITIZE_TIMEOUT:-300}" \
      "$RUN" -n "$NP" --tag-output "$sanitizer" --error-exitcode 86 --print-limit 20 \
      --tool "$tool" "${extra[@]}" "$tests/$1" "${@:2}" > "$log" 2>&1
    rc=$?
    printf '%-10s %-20s rc=%-3s %s\n' "$tool" "$1" "$rc" "$(grep -hoE '(ERROR|RACECHECK) SUMMARY: [0-9]* (error|hazard)' "$log" | sort | uniq -c | paste -sd';')"
  done
}

# One sweep of build $1 in mode $2 into $3.csv/.txt, compared with $4.csv when given.
sweep() {
  local build=$1 mode=$2 out=$3 base=${4:-} g=()
  [ "$mode" = graph ] && g=(-G 20)
  timeout 300 "$build/launcher/symcoll-run" -n "$NP" "$build/perf/symcoll-perf" --op all \
    --mode "$mode" "${g[@]}" --compare nccl --csv "$out.csv" ${base:+--baseline "$base.csv"} \
    > "$out.txt" 2>&1
}

perf() {
  share_for "$NP"
  local pct=$SHARE
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${pct:-100}
  for mode in stream graph; do
    if [ -n "${BASE_BUILD:-}" ]; then
      sweep "$BASE_BUILD" "$mode" "$L/base-$mode"
      sweep "$B" "$mode" "$L/perf-$mode" "$L/base-$mode"
    else
      sweep "$B" "$mode" "$L/perf-$mode"
    fi
    echo "== sweep, $mode mode ($NP PEs${pct:+, MPS $pct %}): rc=$?"
    grep -E "^# (gpu sharing|nccl)" "$L/perf-$mode.txt"
    grep -E "^ +[a-z]+ +(0|8|2097152|134217728) +[0-9]" "$L/perf-$mode.txt" | cut -c1-140
    [ -n "${BASE_BUILD:-}" ] && grep -iE "slower|compared" "$L/perf-$mode.txt" | head -20
  done
  timeout 200 "$RUN" -n "$NP" "$PERF" --op halo -b 1k -e 4m -f 4 --mode both -G 20 \
    --compare nccl --csv "$L/halo.csv" > "$L/halo.txt" 2>&1
  echo "== --op halo: rc=$?"
  for op in dev_barrier dev_pingpong; do
    timeout 120 "$RUN" -n "$NP" "$PERF" --op $op > "$L/$op.txt" 2>&1
    echo "== --op $op: rc=$?"; grep -E "^ +dev_|n/a" "$L/$op.txt" | head -6
  done
  timeout 200 "$RUN" -n "$NP" "$PERF" --op dev_reduce,dev_broadcast,dev_fcollect,dev_alltoall \
    -e 16m --csv "$L/dev_coll.csv" > "$L/dev_coll.txt" 2>&1
  echo "== --op dev_<collective>: rc=$?"
  grep -E "^ +dev_(barrier|reduce) +(block|grid) +(0|8|16777216) " "$L/dev_coll.txt"
  timeout 120 "$RUN" -n "$NP" "$B/examples/fused_matmul_allreduce" -n 4096 -niter 10 \
    > "$L/fused_matmul.txt" 2>&1
  echo "== fused_matmul_allreduce 4096: rc=$?"; grep -E "wrong|speedup" "$L/fused_matmul.txt" | sort -u
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
}

ab() {
  [ -n "${BASE_BUILD:-}" ] || { echo "check.sh: ab needs BASE_BUILD"; return 2; }
  local r
  share_for "$NP"
  local pct=$SHARE
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${pct:-100}
  echo "== A/B, graph mode ($NP PEs${pct:+, MPS $pct %}): $BASE_BUILD, then $B"
  for r in $(seq "${AB_ROUNDS:-4}"); do
    sweep "$BASE_BUILD" graph "$L/ab-base-$r"
    sweep "$B" graph "$L/ab-new-$r" "$L/ab-base-$r"
    echo "round $r: $(grep -E '^# baseline' "$L/ab-new-$r.txt")"
  done
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
}

nomps() {
  mps_stop
  echo "== $NP PEs without MPS"
  SYMCOLL_DEBUG=warn timeout 300 "$RUN" -n "$NP" --timeout 280 "$B/tests/coll_reduce_test" \
    > "$L/nomps-reduce.log" 2>&1
  echo "coll_reduce_test rc=$?"; grep -hE "warn|PASSED|FAILED" "$L/nomps-reduce.log" | cut -c1-200 | head -4
  timeout 200 "$RUN" -n "$NP" "$PERF" --op barrier,reduce -b 8 -e 8 -n 20 -w 2 > "$L/nomps-perf.txt" 2>&1
  grep -E "^ +(launch|barrier|reduce) " "$L/nomps-perf.txt"
}

# Builds a harness against the library and runs it with 2 PEs.
floor() {
  mps_stop
  for tool in graph_floor flag_offsets; do
    nvcc -arch=sm_90 -O3 -I "$HERE/../../include" "$HERE/$tool.cu" -L "$B" -lsymcoll \
      -Xlinker -rpath -Xlinker "$B" -o "$L/$tool" &&
      timeout 120 "$RUN" -n 2 "$L/$tool" > "$L/$tool.txt" 2>&1
    echo "== $tool: rc=$?"; tail -8 "$L/$tool.txt"
    rm -f "$L/$tool"
  done
}

# The Python GPU tests with $1 PEs under symcoll-run, mpirun (PMIx) and torchrun (init over a
# gloo group); summary lines "<launcher> <PEs> PEs: <pytest's counts per PE>".
python_job() {
  local pes=$1 tests=$HERE/../../python/tests/test_gpu.py launcher rc log
  share_for "$pes"
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${SHARE:-100} SYMCOLL_LIBRARY=$B/libsymcoll.so
  local pytest=(python3 -m pytest -q -p no:cacheprovider "$tests")
  for launcher in symcoll-run mpirun torchrun; do
    log=$L/python-$launcher-$pes.log
    case $launcher in
      symcoll-run) timeout 600 "$RUN" -n "$pes" --tag-output "${pytest[@]}" > "$log" 2>&1 ;;
      mpirun) timeout 600 mpirun --allow-run-as-root --oversubscribe -np "$pes" \
        --tag-output "${pytest[@]}" > "$log" 2>&1 ;;
      torchrun) SYMCOLL_TEST_GROUP=gloo timeout 600 torchrun --nproc-per-node "$pes" \
        "${pytest[@]:1}" > "$log" 2>&1 ;;
    esac
    rc=$?
    echo "$launcher $pes PEs: rc=$rc, $(grep -hoE '[0-9]+ (passed|failed|skipped|errors?)' "$log" |
      sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? "; " : ""), $2 " " $3, $1}')"
  done
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE SYMCOLL_LIBRARY
}

# python -m symcoll.bench: NP PEs sharing the GPU (symcoll alone), and one PE under torchrun,
# where torch.distributed and SymmetricMemory can run beside it.
python_bench() {
  share_for "$NP"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${SHARE:-100} SYMCOLL_LIBRARY=$B/libsymcoll.so timeout 300 \
    "$RUN" -n "$NP" python3 -m symcoll.bench --csv "$L/bench-$NP.csv" > "$L/bench-$NP.txt" 2>&1
  echo "== python -m symcoll.bench, $NP PEs: rc=$?"; cat "$L/bench-$NP.txt"
  [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || mps_stop
  SYMCOLL_LIBRARY=$B/libsymcoll.so timeout 300 torchrun --nproc-per-node 1 -m symcoll.bench \
    --csv "$L/bench-1.csv" > "$L/bench-1.txt" 2>&1
  echo "== python -m symcoll.bench, 1 PE under torchrun: rc=$?"; cat "$L/bench-1.txt"
}

python_tests() {
  export PYTHONPATH=$HERE/../../python${PYTHONPATH:+:$PYTHONPATH}
  echo "== python GPU tests (pytest counts per PE)"
  python_job "$NP"
  [ "$NP" = 4 ] || python_job 4
  python_bench
}

# symcoll-perf on $1 PEs over 2 nodes in mode $2 into $3.txt and .csv; $4 nccl: NCCL beside,
# which then takes each rank for a host of its own and crosses over sockets, as the proxy does
# over UCX; $5 a --team (peers: one PE of each node per team, alltoallv too). SWEEP_BUILD: the
# build to run (default this one); SWEEP_BASE: a CSV to compare with (--baseline).
nodes_sweep() {
  local pes=$1 mode=$2 out=$3 g=() compare=() team=(--team "${5:-world}")
  local ops=barrier,broadcast,reduce,fcollect,alltoall,reduce_scatter build=${SWEEP_BUILD:-$B}
  [ "$mode" = graph ] && g=(-G 20)
  [ "${4:-}" = nccl ] && compare=(--compare nccl)
  [ "${5:-}" = peers ] && ops=$ops,alltoallv
  # shellcheck disable=SC2016 # each rank's shell expands its own SYMCOLL_NODE_ID
  timeout 300 "$build/launcher/symcoll-run" -n "$pes" --nodes 2 --timeout 280 bash -c \
    'NCCL_HOSTID=node$SYMCOLL_NODE_ID NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 exec "$@"' _ \
    "$build/perf/symcoll-perf" --op "$ops" -b 8 -e "${NODES_MAXBYTES:-16m}" -f 8 --mode "$mode" \
    "${g[@]}" "${compare[@]}" "${team[@]}" --csv "$out.csv" \
    ${SWEEP_BASE:+--baseline "$SWEEP_BASE"} > "$out.txt" 2>&1
  local rc=$?
  echo "== $pes PEs on 2 nodes, $mode${4:+, $4 beside}, team ${5:-world}: rc=$rc"
  [ "$rc" = 0 ] || mps_ensure
}

# The 8 B and 16 MiB rows of sweep $1 (.txt).
nodes_rows() {
  grep -E "^ +(barrier|broadcast|reduce|fcollect|alltoall|reduce_scatter|alltoallv) +[0-9]+ " \
    "$1.txt" | awk '$2 == 8 || $2 == 16777216' | head -14
}

nodes() {
  share_for 4
  echo "== the nodes tests (2 nodes of 1 PE${SHARE:+, MPS 50 %})"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 TESTS='^nodes_' run_label '^gpu$' "$L/ctest-nodes-2pe.log"
  echo "== the nodes tests (2 nodes of 2 PEs${SHARE:+, MPS 25 %})"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 TESTS='^nodes_' run_label 4pe "$L/ctest-nodes-4pe.log"
  echo "== the nodes tests (3 nodes of 1 PE${SHARE:+, MPS 33 %})"
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=33 run_label 3nodes "$L/ctest-nodes-3nodes.log"
  local mode
  for mode in stream graph; do
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 nodes_sweep 2 "$mode" "$L/nodes-2pe-$mode"
    nodes_rows "$L/nodes-2pe-$mode"
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 nodes_sweep 4 "$mode" "$L/nodes-4pe-$mode"
    nodes_rows "$L/nodes-4pe-$mode"
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25 nodes_sweep 4 "$mode" "$L/nodes-4pe-peers-$mode" nccl peers
    nodes_rows "$L/nodes-4pe-peers-$mode"
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 nodes_sweep 2 "$mode" "$L/nodes-2pe-nccl-$mode" nccl
    nodes_rows "$L/nodes-2pe-nccl-$mode"
  done
}

nodes_ab() {
  [ -n "${BASE_BUILD:-}" ] || { echo "check.sh: nodes_ab needs BASE_BUILD"; return 2; }
  share_for 2
  local r mode base new
  echo "== A/B on 2 nodes of 1 PE${SHARE:+, MPS 50 %}: $BASE_BUILD, then $B"
  for r in $(seq "${AB_ROUNDS:-4}"); do
    for mode in stream graph; do
      base=$L/nodes-ab-base-$mode-$r new=$L/nodes-ab-new-$mode-$r
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 SWEEP_BUILD=$BASE_BUILD nodes_sweep 2 "$mode" "$base"
      CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 SWEEP_BASE=$base.csv nodes_sweep 2 "$mode" "$new"
      echo "round $r, $mode: $(grep -E '^# baseline' "$new.txt")"
    done
  done
}

# The ratio of each pair of the nodes_put_bandwidth logs $@ ('# SIZE RATIO...' lines), pooled:
# per size, the pairs, their median and how many fell below 0.8.
pooled_ratios() {
  sed -n 's/^\[0\] # *\([0-9][0-9]*\) /\1 /p' "$@" |
    awk '{ for (i = 2; i <= NF; i++) print $1, $i }' | sort -k1,1n -k2,2g |
    awk '{ v[$1] = v[$1] " " $2; n[$1]++; if ($2 < 0.8) low[$1]++ }
         END { for (s in n) { split(v[s], a, " "); k = n[s]
                 m = k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
                 printf "%12d %6d %7.2f %6d\n", s, k, m, low[s] } }' | sort -n
}

nodes_bw() {
  share_for 2
  local r log
  echo "== proxy put against raw UCX, 2 nodes of 1 PE${SHARE:+, MPS 50 %}: ${BW_ROUNDS:-3} runs"
  for r in $(seq "${BW_ROUNDS:-3}"); do
    log=$L/nodes-bw-$r.txt
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 timeout 300 "$RUN" -n 2 --nodes 2 --tag-output \
      --timeout 280 "$B/tests/nodes_put_bandwidth" 16777216 268435456 3 > "$log" 2>&1
    echo "run $r: rc=$?"
    grep -E '^\[0\] ' "$log" | grep -vE '^\[0\] # *([0-9]|medians)'
  done
  echo "       bytes  pairs  median  below 0.8   (ratio of raw UCX's time to the proxy's, every run)"
  pooled_ratios "$L"/nodes-bw-*.txt
}

for step in ${STEPS//,/ }; do
  case $step in
    suite | wide | sanitize | perf | ab | nomps | floor | nodes | nodes_ab | nodes_bw) $step ;;
    python) python_tests ;;
    *) echo "check.sh: unknown step '$step'"; exit 2 ;;
  esac
done
