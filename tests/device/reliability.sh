#!/usr/bin/env bash
# 2-GPU machine: the dead-peer tests (verbose, for their timings) and a soak of SOAK seconds
# (default 300). Logs under $OUT.
B=/work/main/build-dev; RUN="$B/src/launcher/symcoll-run -n ${NP:-2}"
ctest --test-dir $B -R dead_peer -V --timeout 150 > $OUT/dead-peer.log 2>&1
$RUN --timeout $((${SOAK:-300} + 120)) $B/perf/symcoll-perf --soak ${SOAK:-300} > $OUT/soak.log 2>&1
echo "soak rc=$?" >> $OUT/soak.log
echo "== dead peers"
grep -E "symcoll-run:|detection|next call|finalize|dead-peer|Passed|Failed|tests passed" $OUT/dead-peer.log | sed 's/^[0-9]*: //' | cut -c1-230
echo "== soak"; cat $OUT/soak.log | cut -c1-250
