#!/bin/bash
# Session 11 call 5 (bundle of 12666dc): the MSM GPU tests after the
# mul_pipes rename, then the 32 GiB cold start with 2 pairs of daemons on the
# warm page cache, each pair without srs.preload (the job's synthesis thread
# asks for the set: its load now runs at the daemon's priority) then with it.
set -u
mkdir -p /tmp/b && tar xzf out/cuzk-h200.tar.gz -C /tmp/b && tar xJf out/gt.txz -C /tmp
L=$(ls -d /tmp/b/cuzk-*/lib)
for t in msm_gpu_test field_gpu_test; do
  LD_LIBRARY_PATH=$L timeout 120 /tmp/gt/$t > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/$t.log >> $OUT/summary.txt
done
mkdir -p $OUT/cs
OUT=$OUT/cs CUZK_CACHE_DIR=/tmp/cuzk-cache CUZK_PARAMS_DIR=/dev/shm/params CUZK_PAIRS=2 CUZK_WARM_SECTORS=0 timeout 520 bash tools/gpu-host/cold_start_run.sh out/cuzk-h200.tar.gz > $OUT/cold_start.log 2>&1
echo "cold start rc=$?" >> $OUT/summary.txt
tail -30 $OUT/cold_start.log >> $OUT/summary.txt
cat $OUT/summary.txt
