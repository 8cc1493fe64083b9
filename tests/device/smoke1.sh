#!/usr/bin/env bash
# One-GPU machine: every GPU test with 1 PE (symcoll-run), then with 2 PEs sharing the GPU
# (PMIx bootstrap, since NCCL refuses two ranks on one GPU). Logs: $OUT/np1.log, $OUT/np2.log.
B=/work/main/build-dev; T=$B/tests
GPU_TESTS="core_gpu_test rma_gpu barrier_gpu coll_broadcast_test coll_reduce_test coll_fcollect_test coll_alltoall_test coll_sequence_test"
for t in $GPU_TESTS; do
  echo "=== $t" >> $OUT/np1.log
  timeout 150 $B/src/launcher/symcoll-run -n 1 --timeout 140 $T/$t >> $OUT/np1.log 2>&1; echo "np1 $t rc=$?"
done
for t in $GPU_TESTS; do
  echo "=== $t" >> $OUT/np2.log
  SYMCOLL_BOOTSTRAP=pmix SYMCOLL_TIMEOUT_MS=20000 timeout ${NP2_TIMEOUT:-120} mpirun --allow-run-as-root --oversubscribe -np 2 $T/$t >> $OUT/np2.log 2>&1; echo "np2-same-gpu $t rc=$?"
done
grep -h -E "^\[  FAILED  \] [A-Za-z]" $OUT/np1.log $OUT/np2.log | sort | uniq -c | head -40
