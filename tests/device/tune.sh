#!/usr/bin/env bash
# 2-GPU machine: symcoll-perf --tune writes a tuning file (timed), --explain shows which rows
# it decides, and a checked graph sweep runs with the file loaded by symcoll_init. Results:
# $OUT/tune.txt (the choices beside the built-in ones), $OUT/tuned.tuning, $OUT/tune-explain.txt,
# $OUT/tune-sweep.txt.
B=/work/main/build-dev; RUN="$B/src/launcher/symcoll-run -n ${NP:-2}"
start=$(date +%s)
$RUN $B/perf/symcoll-perf --tune "$OUT/tuned.tuning" > "$OUT/tune.txt" 2>&1
echo "tune rc=$? in $(($(date +%s) - start)) s"
SYMCOLL_TUNING_FILE="$OUT/tuned.tuning" $B/perf/symcoll-perf --explain --npes "${NP:-2}" \
  > "$OUT/tune-explain.txt" 2>&1
echo "explain rc=$?"
SYMCOLL_TUNING_FILE="$OUT/tuned.tuning" $RUN $B/perf/symcoll-perf --mode graph \
  > "$OUT/tune-sweep.txt" 2>&1
echo "sweep with the file rc=$?"
cat "$OUT/tune.txt" "$OUT/tuned.tuning"
grep -c "tuning file" "$OUT/tune-explain.txt"
