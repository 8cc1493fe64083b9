#!/usr/bin/env bash
# On the GPU machine: unpacks the staged build at the path it was built at, then runs
# "$@" (default: the GPU tests). Logs go to $OUT.
set -u
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if [ "$PWD" != /work/main ]; then
  mkdir -p /work && ln -sfn "$PWD" /work/main
fi
cd /work/main
[ -f .dev/build-dev.tgz ] && rm -rf build-dev && tar -xzf .dev/build-dev.tgz
for base in .dev/build-base*.tgz; do
  [ -f "$base" ] && rm -rf "$(basename "$base" .tgz)" && tar -xzf "$base"
done

# The checks, unless a command was given.
if [ $# -gt 0 ]; then "$@"; exit $?; fi
B=/work/main/build-dev
nvidia-smi topo -m > "$OUT/nvidia-topo.txt" 2>&1
$B/src/launcher/symcoll-run -n 2 $B/perf/symcoll-perf --topology > "$OUT/topology.txt" 2>&1
ctest --test-dir $B -L gpu --timeout ${TEST_TIMEOUT:-240} --output-on-failure > "$OUT/ctest-gpu.log" 2>&1
echo "== topology"; cat "$OUT/topology.txt" | head -20
echo "== ctest"; grep -E "Test +#|tests passed|tests failed|Skipped|\(Failed\)|Timeout" "$OUT/ctest-gpu.log" | tail -40
