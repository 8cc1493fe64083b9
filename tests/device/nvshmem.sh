#!/usr/bin/env bash
# 2-GPU machine, through run.sh: the NVSHMEM compatibility GPU tests (unchanged NVSHMEM programs
# built against include/symcoll/nvshmem.h: 2 PEs under symcoll-run, -rdc and two-unit builds,
# the heap-size variables, init from MPI under mpirun), then the ring built with the README's
# nvcc line. Log in $OUT/nvshmem.log; a summary on stdout. Exit 1 if any failed.
B=/work/main/build-dev
export SYMCOLL_TIMEOUT_MS=60000
rc=0
{
  ctest --test-dir $B -L gpu -R "^nvshmem_" --timeout 300 --output-on-failure || rc=1
  if command -v nvcc >/dev/null; then
    cd /work/main
    echo "== nvcc line"
    nvcc -std=c++17 -arch=sm_90 -Iinclude/symcoll -Iinclude tests/nvshmem/ring_signal.cu \
      -o /tmp/nvshmem_ring -L$B -lsymcoll -Xlinker -rpath,$B || rc=1
    NVSHMEM_SYMMETRIC_SIZE=256m $B/src/launcher/symcoll-run -n 2 --tag-output --timeout 120 \
      /tmp/nvshmem_ring || rc=1
  fi
} > $OUT/nvshmem.log 2>&1
echo "== nvshmem"
grep -E "Test +#|tests passed|tests failed|PASSED|FAILED|rc=" $OUT/nvshmem.log | tail -40
echo "== nvshmem: $([ $rc = 0 ] && echo all passed || echo FAILED)"
exit $rc
