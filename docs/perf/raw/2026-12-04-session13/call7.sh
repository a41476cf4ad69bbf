#!/bin/bash
# Session 13 call 7 (working tree after be7901c: the review's fixes): the MSM
# GPU tests with odd n, FP64 pipes, all zeros and streamed bases window-major,
# segment lengths past a window; the default MSM figures again.
set -u
mkdir -p /tmp/tt && tar xJf out/tests.tar.xz -C /tmp/tt
chmod +x out/gb
LD_LIBRARY_PATH=/tmp/tt timeout 100 /tmp/tt/msm_gpu_test > $OUT/msm_gpu_test.log 2>&1
echo "msm_gpu_test rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/msm_gpu_test.log | tr '\n' ' ')" > $OUT/summary.txt
grep -E "Failure|Expected|Which|FAILED" $OUT/msm_gpu_test.log | head -20 >> $OUT/summary.txt
timeout 60 out/gb msm --curve g1 --log-sizes 24,26 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 171 > $OUT/msm.log 2>&1
grep -E "^\| [0-9]|overall" $OUT/msm.log >> $OUT/summary.txt
cat $OUT/summary.txt
