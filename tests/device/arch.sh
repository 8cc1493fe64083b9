#!/usr/bin/env bash
# 2-GPU machine: what the build embeds (cuobjdump), the first-call table with an empty JIT cache,
# then symcoll-perf beside NCCL in stream and graph mode. Logs under $OUT.
B=/work/main/build-dev; RUN="$B/src/launcher/symcoll-run -n ${NP:-2}"
for f in $B/libsymcoll.so $(find $B/examples -maxdepth 1 -type f -executable); do
  echo "== $f"; cuobjdump --list-elf "$f"; cuobjdump --list-ptx "$f"
done > $OUT/cuobjdump.txt 2>&1
for i in 1 2 3; do
  rm -rf ~/.nv/ComputeCache
  CUDA_CACHE_DISABLE=1 $RUN $B/perf/symcoll-perf --op all -b 8 -e 8 -c 0 --csv $OUT/first-$i.csv
done > $OUT/first-call.txt 2>&1
if [ "${PERF:-1}" = 1 ]; then
  $RUN $B/perf/symcoll-perf --op all --compare nccl --csv $OUT/stream.csv > $OUT/perf-stream.txt 2>&1
  $RUN $B/perf/symcoll-perf --op all --compare nccl -G 20 --csv $OUT/graph.csv > $OUT/perf-graph.txt 2>&1
fi
tar -C $OUT -czf $OUT/logs.tgz cuobjdump.txt first-call.txt first-1.csv perf-stream.txt perf-graph.txt 2>/dev/null
echo "== cuobjdump"; grep -E "^==|ELF file|PTX file" $OUT/cuobjdump.txt | head -40
echo "== first calls"; grep -A8 "first calls" $OUT/first-call.txt | grep -v "^#\s*$"
echo "== perf stream"; grep -v "^# \(machine\|host\|gpu\)" $OUT/perf-stream.txt | tail -48 | cut -c1-160
echo "== perf graph"; tail -42 $OUT/perf-graph.txt | cut -c1-160
