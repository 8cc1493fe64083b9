#!/usr/bin/env bash
# 2-GPU machine, through run.sh after stage.sh: builds flag_offsets.cu against build-dev and
# times the relaxed in-kernel barrier with its flags at 64 offsets (issue 13: is the time
# bimodal by where the flag lives?). Output: $OUT/flag-offsets.txt and a summary.
B=/work/main/build-dev
nvcc -arch=sm_90 -O3 -I /work/main/include -I $B/include tests/device/flag_offsets.cu \
  -L $B -lsymcoll -Xlinker -rpath -Xlinker $B -o $OUT/flag_offsets || exit 1
timeout 120 $B/src/launcher/symcoll-run -n 2 $OUT/flag_offsets > $OUT/flag-offsets.txt 2>&1
echo "rc=$?"; rm -f $OUT/flag_offsets
sort -k4 -n $OUT/flag-offsets.txt | awk '/us per sync/ {print $4}' | uniq -c | head -20
