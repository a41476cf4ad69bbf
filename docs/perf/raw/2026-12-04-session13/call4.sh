#!/bin/bash
# Session 13 call 4 (bundle of 1cccd3c: window-major digits, longer chunks,
# G2 segments): the G1/G2 MSM figures from the bundle, then issue 17's cold
# start (one pair: no srs.preload, then srs.preload) and 4 warm 32 GiB
# sectors 2 at a time (issue 16's proofs a minute), as session 12 call 3.
set -u
mkdir -p /tmp/b && tar -xzf out/cuzk-h200.tar.gz -C /tmp/b
B=$(echo /tmp/b/cuzk-*/)
( timeout 60 $B/bin/cuzk-gpu-bench msm --curve g2 --log-sizes 22 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 161
  timeout 60 $B/bin/cuzk-gpu-bench msm --curve g1 --log-sizes 24,26 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 162 ) > $OUT/msm.log 2>&1
grep -E "^\| [0-9]|overall" $OUT/msm.log > $OUT/summary.txt
mkdir -p $OUT/cs
OUT=$OUT/cs CUZK_CACHE_DIR=/tmp/cuzk-cache CUZK_PARAMS_DIR=/dev/shm/params CUZK_PAIRS=1 CUZK_WARM_SECTORS=4 \
  timeout 480 bash tools/gpu-host/cold_start_run.sh out/cuzk-h200.tar.gz > $OUT/cold_start.log 2>&1
echo "cold start rc=$?" >> $OUT/summary.txt
tail -45 $OUT/cold_start.log >> $OUT/summary.txt
(cd $OUT/cs && python3 "$OLDPWD/tools/gpu-host/first_proof_timeline.py" daemon-*.log) > $OUT/timeline.txt 2>&1
mv $OUT/cs/all-logs.tgz $OUT/cold-start-logs.tgz 2>/dev/null; rm -rf $OUT/cs
cat $OUT/summary.txt $OUT/timeline.txt
