#!/usr/bin/env bash
# 2-GPU machine, through run.sh: the halo exchange GPU tests (2 PEs with symcoll-run, 1 PE,
# 4 PEs on the 2 GPUs under mpirun with the PMIx bootstrap), the Jacobi table (1024^2, 4096^2,
# 16384^2 x nccheck 1000 and 1, every variant, -csv), heat3d (7- and 27-point) and
# symcoll-perf --op halo beside NCCL. Logs and CSVs under $OUT; a summary on stdout.
# AB_LIB=dir (optional): a libsymcoll built with the credit wait removed, for the A/B of the
# credit's cost on --op halo (graph mode).
B=/work/main/build-dev; T=$B/tests; RUN="$B/src/launcher/symcoll-run -n 2"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
export SYMCOLL_TIMEOUT_MS=60000

$RUN --timeout 150 $T/halo_gpu_test > $OUT/halo-np2.log 2>&1; echo "rc=$?" >> $OUT/halo-np2.log
$B/src/launcher/symcoll-run -n 1 --timeout 150 $T/halo_gpu_test > $OUT/halo-np1.log 2>&1
echo "rc=$?" >> $OUT/halo-np1.log
SYMCOLL_BOOTSTRAP=pmix timeout 200 $MPIRUN -x SYMCOLL_BOOTSTRAP -x SYMCOLL_TIMEOUT_MS -np 4 \
  $T/halo_gpu_test > $OUT/halo-np4.log 2>&1; echo "rc=$?" >> $OUT/halo-np4.log

for n in 1024 4096 16384; do
  for c in 1000 1; do
    timeout 120 $RUN --timeout 110 $B/examples/jacobi -nx $n -ny $n -niter 1000 -nccheck $c -csv
    echo "# jacobi $n nccheck $c rc=$?"
  done
done > $OUT/jacobi.csv 2> $OUT/jacobi.err
timeout 60 $MPIRUN -np 2 $B/examples/jacobi -nx 1024 -ny 1024 -nccheck 1000 -csv \
  > $OUT/jacobi-mpirun.csv 2>&1; echo "# rc=$?" >> $OUT/jacobi-mpirun.csv

{ timeout 90 $RUN --timeout 80 $B/examples/heat3d -n 256 -niter 100 -csv; echo "# rc=$?"
  timeout 60 $RUN --timeout 50 $B/examples/heat3d -n 64 -niter 50 -grid 2,1,1 -csv; echo "# rc=$?"
  SYMCOLL_BOOTSTRAP=pmix timeout 90 $MPIRUN -x SYMCOLL_BOOTSTRAP -np 4 $B/examples/heat3d -n 64 \
    -niter 20 -variant symcoll -grid 2,2,1 -csv; echo "# 4 PEs 2x2x1 rc=$?"
} > $OUT/heat3d.csv 2> $OUT/heat3d.err

timeout 150 $RUN --timeout 140 $B/perf/symcoll-perf --op halo -b 1k -e 4m -f 4 --mode both \
  -G 20 --compare nccl --csv $OUT/halo-perf.csv --plot $OUT/halo-perf.png > $OUT/halo-perf.txt 2>&1
echo "rc=$?" >> $OUT/halo-perf.txt
if [ -n "${AB_LIB:-}" ]; then
  LD_LIBRARY_PATH=$AB_LIB:$LD_LIBRARY_PATH timeout 60 $RUN $B/perf/symcoll-perf --op halo \
    -b 4k -e 64k -f 4 --mode graph -G 20 > $OUT/halo-ab-nocredit.txt 2>&1
fi

echo "== halo tests (np2, np1, np4)"
for f in np2 np1 np4; do
  echo "$f: $(grep -hE '^\[  (PASSED|FAILED) |tests? ran' $OUT/halo-$f.log | sort -u | tr '\n' ' ') $(tail -1 $OUT/halo-$f.log)"
done
grep -hE "^\[  FAILED  \] [A-Za-z]|Failure|error" $OUT/halo-np*.log | sort | uniq -c | head -20
echo "== jacobi (variant, nx, ny, niter, nccheck, npes, 1, s on npes, s on 1)"
cat $OUT/jacobi.csv; tail -5 $OUT/jacobi.err; cat $OUT/jacobi-mpirun.csv
echo "== heat3d (variant, n, corners, grid, niter, npes, s, s on 1)"
cat $OUT/heat3d.csv; tail -5 $OUT/heat3d.err
echo "== symcoll-perf --op halo"
grep -vE "^\[" $OUT/halo-perf.txt | head -60
[ -f $OUT/halo-ab-nocredit.txt ] && { echo "== A/B without the credit wait"; cat $OUT/halo-ab-nocredit.txt; }
