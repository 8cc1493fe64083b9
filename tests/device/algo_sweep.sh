#!/usr/bin/env bash
# 2-GPU machine: every algorithm of each collective forced over the sizes where the choice
# changes (graph mode, no check), to set tuning's thresholds from measurements. Also the
# collective tests of the algorithms being tuned. Summary: $OUT/algo-sweep.txt.
B=/work/main/build-dev; RUN="$B/src/launcher/symcoll-run -n ${NP:-2}"
for t in coll_broadcast_test coll_fcollect_test coll_alltoall_test; do
  $RUN $B/tests/$t > $OUT/$t.log 2>&1; echo "$t rc=$?"
done
sweep() { # op env-var algos min max
  local op=$1 var=$2 algos=$3 min=$4 max=$5
  for a in $algos; do
    env $var=$a $RUN $B/perf/symcoll-perf --op $op -b $min -e $max -f 2 -G 20 -c 0 \
      --csv $OUT/sweep-$op-$a.csv > /dev/null 2>&1
  done
  python3 - "$op" $algos <<'PY'
import csv, sys
op, algos = sys.argv[1], sys.argv[2:]
rows = {}
for a in algos:
    try:
        for r in csv.DictReader(open(f"{__import__('os').environ['OUT']}/sweep-{op}-{a}.csv")):
            if r["op"] == op:
                rows.setdefault(int(r["bytes"]), {})[a] = float(r["time_us"])
    except FileNotFoundError:
        pass
print(f"{op:10s} {'bytes':>10s} " + " ".join(f"{a:>9s}" for a in algos))
for b in sorted(rows):
    print(f"{op:10s} {b:10d} " + " ".join(f"{rows[b].get(a, float('nan')):9.2f}" for a in algos))
PY
}
{
sweep broadcast SYMCOLL_ALGO_BROADCAST "ll pull push ce" 32k 16m
sweep reduce SYMCOLL_ALGO_REDUCE "ll one_shot two_shot" 32k 4m
sweep fcollect SYMCOLL_ALGO_FCOLLECT "ll push pull ce" 32k 128m
sweep alltoall SYMCOLL_ALGO_ALLTOALL "ll push pull ce" 32k 128m
} > $OUT/algo-sweep.txt 2>&1
rm -f $OUT/sweep-*.csv
cat $OUT/algo-sweep.txt
