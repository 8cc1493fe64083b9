#!/usr/bin/env bash
# 2-GPU machine, through run.sh: every example of examples/ on 2 PEs (each checks its own
# result; output in $OUT/examples.log), then the device-API example built with the README's
# nvcc line against the staged build (where nvcc is present). Exit 1 if any failed.
B=/work/main/build-dev
RUN="$B/src/launcher/symcoll-run -n ${NP:-2} --tag-output --timeout 300"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -np ${NP:-2}"
rc=0
run() { # name command...
  echo "== $1"
  shift
  "$@" || { echo "FAILED: exit $?"; rc=1; }
}
{
  for ex in allreduce_stream graph_capture device_put_signal; do
    run $ex $RUN $B/examples/$ex
  done
  for ex in init_from_mpi init_from_nccl_comm; do
    if [ -x $B/examples/$ex ]; then run $ex $MPIRUN $B/examples/$ex; else echo "== $ex: not built"; fi
  done
  if command -v nvcc >/dev/null; then
    cd /work/main
    run "nvcc line" nvcc -std=c++17 -arch=sm_90 -Iinclude -Iexamples/common \
      examples/device_put_signal/device_put_signal.cu -o /tmp/device_put_signal \
      -L$B -lsymcoll -Xlinker -rpath,$B
    run "device_put_signal (nvcc)" $RUN /tmp/device_put_signal
  else
    echo "== nvcc line: no nvcc here"
  fi
  echo "== examples: $([ $rc = 0 ] && echo all passed || echo FAILED)"
} > $OUT/examples.log 2>&1
cat $OUT/examples.log
exit $rc
