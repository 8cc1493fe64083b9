B=/work/main/build-dev; T=$B/tests
for t in core_gpu_test rma_gpu barrier_gpu coll_broadcast_test coll_reduce_test coll_fcollect_test coll_alltoall_test coll_sequence_test; do
  timeout 150 $B/src/launcher/symcoll-run -n 1 --timeout 140 $T/$t > $OUT/np1_$t.log 2>&1; echo "np1 $t rc=$?"
done
SYMCOLL_BOOTSTRAP=pmix timeout 100 mpirun --allow-run-as-root --oversubscribe -np 2 $T/core_gpu_test > $OUT/pmix2_core.log 2>&1; echo "pmix2 core_gpu_test rc=$?"
SYMCOLL_BOOTSTRAP=pmix timeout 100 mpirun --allow-run-as-root --oversubscribe -np 2 $T/barrier_gpu > $OUT/pmix2_barrier.log 2>&1; echo "pmix2 barrier rc=$?"
$B/src/launcher/symcoll-run -n 1 $B/perf/symcoll-perf --topology 2>&1 | head; 
grep -h -E "FAILED|PASSED|rror" $OUT/*.log | sort | uniq -c | sort -rn | head -40
