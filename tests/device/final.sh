#!/usr/bin/env bash
# 2-GPU machine: every GPU test, the Jacobi mini-app, and an A/B of the bandwidth kernels'
# final synchronization (with and without the acquire fence; the variant's libsymcoll is in
# .dev/ab). Logs under $OUT.
B=/work/main/build-dev; RUN="$B/src/launcher/symcoll-run -n ${NP:-2}"
ctest --test-dir $B -L gpu --timeout 300 --output-on-failure > $OUT/ctest-gpu.log 2>&1
$RUN --timeout 120 $B/examples/jacobi -nx 1024 -ny 1024 -csv > $OUT/example-halo.log 2>&1
echo "example rc=$?" >> $OUT/example-halo.log
ab() { # label libdir
  for op in fcollect reduce alltoall broadcast; do
    env ${2:+LD_LIBRARY_PATH=$2:$LD_LIBRARY_PATH} $RUN $B/perf/symcoll-perf --op $op -b 1m -e 16m \
      -f 2 -G 20 -c 0 | awk -v l=$1 '$1 !~ /^#/ && $1 != "launch" {print l, $1, $2, $7, $NF}'
  done
}
{ ab final-relaxed ""; ab final-acquire /work/main/.dev/ab; } > $OUT/ab.txt 2>&1
echo "== ctest"; grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" $OUT/ctest-gpu.log
echo "== example"; tail -3 $OUT/example-halo.log
echo "== A/B (op bytes time algorithm)"; sort -k2,2 -k3,3n -s $OUT/ab.txt
