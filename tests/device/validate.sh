#!/usr/bin/env bash
# 2-GPU machine: every GPU test but the soak (reliability.sh runs a long one), with the
# dead-peer tests verbose for their timings, the NVSHMEM programs, the examples and the CPU
# tests where a GPU is present. Logs under $OUT; a summary last.
B=/work/main/build-dev
ctest --test-dir $B -L gpu -E "soak_gpu|dead_peer|^nvshmem_" --timeout 300 --output-on-failure \
  > $OUT/ctest-gpu.log 2>&1
ctest --test-dir $B -R dead_peer -V --timeout 150 > $OUT/dead-peer.log 2>&1
bash tests/device/nvshmem.sh > $OUT/nvshmem-summary.txt 2>&1
bash tests/device/examples.sh > $OUT/examples-run.log 2>&1
ctest --test-dir $B -LE gpu > $OUT/ctest-cpu.log 2>&1
echo "== ctest -L gpu"; grep -E "Test +#|tests passed|tests failed" $OUT/ctest-gpu.log | sed 's/  */ /g'
echo "== dead peers"
grep -E "Test +#|symcoll-run:|detection|next call|finalize [0-9]|dead-peer" $OUT/dead-peer.log |
  sed 's/^[0-9]*: //' | cut -c1-200
cat $OUT/nvshmem-summary.txt | tail -25
echo "== examples"; grep -vE "^\[[0-9]\] \[|^$" $OUT/examples-run.log | tail -22
echo "== ctest -LE gpu"; grep -E "tests passed|tests failed|\*\*\*" $OUT/ctest-cpu.log
