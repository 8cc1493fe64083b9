#!/usr/bin/env bash
# 2-GPU machine: every GPU test (ctest -L gpu), the examples, and the first-call table with an
# empty JIT cache. Logs under $OUT, packed into $OUT/gpu-tests.tgz; a summary last.
B=/work/main/build-dev
ctest --test-dir $B -L gpu --timeout ${TEST_TIMEOUT:-300} --output-on-failure > $OUT/ctest-gpu.log 2>&1
bash tests/device/examples.sh > $OUT/examples-run.log 2>&1
PERF=0 bash tests/device/arch.sh > $OUT/arch.log 2>&1
tar -C $OUT -czf $OUT/gpu-tests.tgz --exclude=gpu-tests.tgz . 2>/dev/null
echo "== ctest"; grep -E "Test +#|tests passed|tests failed" $OUT/ctest-gpu.log | sed 's/  */ /g' | tail -60
echo "== dead peers"; grep -E "symcoll-run:|detection|next call|finalize [0-9]|dead-peer" $OUT/ctest-gpu.log | cut -c1-200 | head -40
echo "== soak"; grep -E "^.*soak" $OUT/ctest-gpu.log | cut -c1-250 | tail -4
echo "== examples"; tail -25 $OUT/examples-run.log
sed -n '/== first calls/,$p' $OUT/arch.log
