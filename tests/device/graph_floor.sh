#!/usr/bin/env bash
# 2-GPU machine, through run.sh after stage.sh: builds graph_floor.cu against build-dev and
# times one small synchronizing kernel per call in graph mode, piece by piece (issues 10 and
# 12: what stops the graph barrier at 2.0 us and LL halo rows at 2.5 us), beside the
# library's halo rows of the same run. Output: $OUT/graph-floor.txt and a summary.
B=/work/main/build-dev
nvcc -arch=sm_90 -O3 -I /work/main/include -I $B/include tests/device/graph_floor.cu \
  -L $B -lsymcoll -Xlinker -rpath -Xlinker $B -o $OUT/graph_floor || exit 1
{ timeout 120 $B/src/launcher/symcoll-run -n 2 $OUT/graph_floor; echo "rc=$?"
  timeout 60 $B/src/launcher/symcoll-run -n 2 $B/perf/symcoll-perf --op halo -b 1k -e 4k -f 4 \
    --mode graph -G 20 | grep -E "^#|halo_rows"; } > $OUT/graph-floor.txt 2>&1
rm -f $OUT/graph_floor
cat $OUT/graph-floor.txt
