#!/bin/bash
# Session 13 call 2: window-major digits, chunk sizes, running-sum segment
# lengths and group sums of 4 (new = the working tree after ef5af49) against
# 6ed70c5 (old), same call; msm_gpu_test on the new code; ncu on G2's
# running-sum kernel.
set -u
chmod +x out/gb out/gb-old
mkdir -p /tmp/tt && tar xJf out/tests.tar.xz -C /tmp/tt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
[ -n "${SKIP_TESTS:-}" ] || LD_LIBRARY_PATH=/tmp/tt timeout 200 /tmp/tt/msm_gpu_test > $OUT/msm_gpu_test.log 2>&1
echo "msm_gpu_test rc=$?" > $OUT/summary.txt
tail -3 $OUT/msm_gpu_test.log >> $OUT/summary.txt
R="--warmups 1 --repeats 3 --cpu-check-max-log 14"
{
for round in 1 2; do
  echo "== round $round old"
  timeout 100 out/gb-old msm --curve g1 --log-sizes 24,26 $R --seed 141
  echo "== round $round new"
  timeout 150 out/gb msm --curve g1 --log-sizes 24,26 --window-major 0,1 --chunk 64,128,256 $R --seed 141
done
echo "== 2^27 old"
timeout 100 out/gb-old msm --curve g1 --log-sizes 27 --warmups 1 --repeats 2 --cpu-check-max-log 14 --seed 142
echo "== 2^27 new"
timeout 150 out/gb msm --curve g1 --log-sizes 27 --window-major 0,1 --chunk 64,256 --warmups 1 --repeats 2 --cpu-check-max-log 14 --seed 142
echo "== G2 old"
timeout 100 out/gb-old msm --curve g2 --log-sizes 22 $R --seed 143
echo "== G2 new"
timeout 200 out/gb msm --curve g2 --log-sizes 22 --windows 16,17,18 --window-major 1 --chunk 64,256 --segment-len 0,4,32 $R --seed 143
echo "== G2 new, old settings"
timeout 100 out/gb msm --curve g2 --log-sizes 22 --window-major 0 --chunk 64 $R --seed 143
} > $OUT/msm.log 2>&1
timeout 120 ncu --kernel-name regex:"Segment|GroupSum|Fixup" --launch-count 6 --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats out/gb msm --curve g2 --log-sizes 22 --warmups 0 --repeats 1 --cpu-check-max-log 14 --seed 144 > $OUT/ncu-g2-reduce.txt 2>&1
cd $OUT && tar czf logs.tgz msm.log ncu-g2-reduce.txt msm_gpu_test.log && rm ncu-g2-reduce.txt msm_gpu_test.log
cat $OUT/summary.txt
grep -E "^== |^\| (lg|[0-9])|overall" $OUT/msm.log
