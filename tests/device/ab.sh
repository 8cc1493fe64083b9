#!/usr/bin/env bash
# 2-GPU machine, through run.sh, after stage.sh and stage_base.sh: the collectives sweep
# (graph and stream) and the in-kernel sync figures of the base build (build-base) and of
# this build (build-dev), interleaved REPS times (default 2) in one run; each sweep of this
# build is compared with the base sweep just before it (--baseline: points more than 5 %
# slower are listed). Logs and CSVs under $OUT/ab/; a summary last.
M=/work/main; OLD=$M/build-base; NEW=$M/build-dev; A=$OUT/ab
mkdir -p $A
echo "base: $(cat $M/.dev/build-base.rev 2>/dev/null || echo unknown)"
for rep in $(seq ${REPS:-2}); do
  for mode in graph stream; do
    G=(); [ $mode = graph ] && G=(-G 20)
    timeout 150 $OLD/src/launcher/symcoll-run -n 2 $OLD/perf/symcoll-perf --op all --mode $mode \
      "${G[@]}" --csv $A/base-$mode-$rep.csv > $A/base-$mode-$rep.txt 2>&1
    timeout 150 $NEW/src/launcher/symcoll-run -n 2 $NEW/perf/symcoll-perf --op all --mode $mode \
      "${G[@]}" --csv $A/new-$mode-$rep.csv --baseline $A/base-$mode-$rep.csv \
      > $A/new-$mode-$rep.txt 2>&1
    echo "== $mode, rep $rep: this build against the base just before it (rc $?)"
    grep -iE "slower|regression|compared" $A/new-$mode-$rep.txt | head -30
  done
done
for b in OLD NEW; do
  d=${!b}
  timeout 60 $d/src/launcher/symcoll-run -n 2 $d/perf/symcoll-perf --op dev_barrier \
    > $A/dev-barrier-$b.txt 2>&1 || echo "$b: --op dev_barrier not available"
done
echo "== --op dev_barrier, this build"; grep -E "^ +dev_" $A/dev-barrier-NEW.txt
