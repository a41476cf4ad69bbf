#!/bin/bash
# Session 10 call 3: the budget GPU test, the key image GPU tests, then 32 GiB cold-start pairs (d4c50bc vs 3a71f29).
set -u
tar xJf out/gt4.tgz -C /tmp
mkdir -p /tmp/bl $OUT/cs && tar xzf out/cuzk-h200.tar.gz -C /tmp/bl && export LD_LIBRARY_PATH=$(ls -d /tmp/bl/*/lib)
cd /tmp/gt4 && { timeout 120 ./key_image_budget_gpu_test > $OUT/key_image_budget_gpu_test.log 2>&1; echo "budget test rc=$?" > $OUT/summary.txt; }
cd - > /dev/null
unset LD_LIBRARY_PATH
OUT=$OUT/cs CUZK_CACHE_DIR=/tmp/cuzk-cache CUZK_PARAMS_DIR=/dev/shm/params CUZK_PAIRS=2 CUZK_WARM_SECTORS=0 CUZK_BASE_DAEMON=/tmp/gt4/base/cuzk-daemon timeout 470 bash tools/gpu-host/cold_start_run.sh out/cuzk-h200.tar.gz > $OUT/cold.txt 2>&1
echo "cold rc=$?" >> $OUT/summary.txt
for f in $OUT/cs/daemon-*.log; do python3 tools/gpu-host/first_proof_timeline.py $f; done >> $OUT/summary.txt 2>&1
grep -h "GPU_KEY_IMAGE" $OUT/cs/daemon-*.log | cut -c1-220 >> $OUT/summary.txt
tar czf $OUT/cs.tgz -C $OUT cs && rm -rf $OUT/cs
grep -E "passed|PASSED|FAILED" $OUT/key_image_budget_gpu_test.log | tail -6 >> $OUT/summary.txt
tail -45 $OUT/cold.txt; cat $OUT/summary.txt
