#!/usr/bin/env bash
# 2-GPU machine: topology, every GPU test (symcoll-run and mpirun), the torchrun launch,
# then symcoll-perf beside NCCL in stream and graph mode. At most 8 files under $OUT.
B=/work/main/build-dev; T=$B/tests; RUN="$B/src/launcher/symcoll-run -n ${NP:-2}"
{ nvidia-smi topo -m; echo; $RUN $B/perf/symcoll-perf --topology; } > $OUT/topology.txt 2>&1
ctest --test-dir $B -L gpu --timeout ${TEST_TIMEOUT:-300} --output-on-failure > $OUT/ctest-gpu.log 2>&1
timeout 120 /opt/torch/.venv/bin/torchrun --standalone --nproc_per_node=${NP:-2} --no-python \
  $T/core_init_env > $OUT/torchrun.log 2>&1; echo "torchrun rc=$?" >> $OUT/torchrun.log
if [ "${PERF:-1}" = 1 ]; then
  $RUN $B/perf/symcoll-perf --op all --compare nccl --csv $OUT/stream.csv > $OUT/perf-stream.txt 2>&1
  $RUN $B/perf/symcoll-perf --op all --compare nccl -G 20 --csv $OUT/graph.csv --plot $OUT/perf.png > $OUT/perf-graph.txt 2>&1
fi
echo "== topology"; tail -6 $OUT/topology.txt
echo "== ctest"; grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Skipped|Not Run" $OUT/ctest-gpu.log | head -30
echo "== torchrun"; tail -2 $OUT/torchrun.log
echo "== perf stream"; tail -60 $OUT/perf-stream.txt | cut -c1-200
echo "== perf graph"; tail -60 $OUT/perf-graph.txt | cut -c1-200
