#!/bin/bash
# Session 10 call 4: registered_buffer_gpu_test, key_image_gpu_test, then 32 GiB cold-start pairs (this vs d4c50bc).
set -u
tar xJf out/gt5.tgz -C /tmp
mkdir -p /tmp/bl $OUT/cs && tar xzf out/cuzk-h200.tar.gz -C /tmp/bl && export LD_LIBRARY_PATH=$(ls -d /tmp/bl/*/lib)
cd /tmp/gt5 && { timeout 60 ./registered_buffer_gpu_test > $OUT/registered_buffer_gpu_test.log 2>&1; echo "registered rc=$?" > $OUT/summary.txt; timeout 100 ./key_image_gpu_test > $OUT/key_image_gpu_test.log 2>&1; echo "key_image_gpu_test rc=$?" >> $OUT/summary.txt; }
cd - > /dev/null
unset LD_LIBRARY_PATH
OUT=$OUT/cs CUZK_CACHE_DIR=/tmp/cuzk-cache CUZK_PARAMS_DIR=/dev/shm/params CUZK_PAIRS=2 CUZK_WARM_SECTORS=0 CUZK_BASE_DAEMON=/tmp/gt5/base/cuzk-daemon timeout 420 bash tools/gpu-host/cold_start_run.sh out/cuzk-h200.tar.gz > $OUT/cold.txt 2>&1
echo "cold rc=$?" >> $OUT/summary.txt
for f in $OUT/cs/daemon-*.log; do python3 tools/gpu-host/first_proof_timeline.py $f; done >> $OUT/summary.txt 2>&1
grep -h "GPU_KEY_IMAGE" $OUT/cs/daemon-*.log | cut -c1-220 >> $OUT/summary.txt
tar czf $OUT/cs.tgz -C $OUT cs && rm -rf $OUT/cs
grep -E "passed|PASSED|FAILED" $OUT/registered_buffer_gpu_test.log $OUT/key_image_gpu_test.log | tail -8 >> $OUT/summary.txt
tail -45 $OUT/cold.txt; cat $OUT/summary.txt
