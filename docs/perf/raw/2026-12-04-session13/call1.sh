#!/bin/bash
# Session 13 call 1 (cuzk-gpu-bench of 6ed70c5): XYZZ window widths re-timed
# after the fused rows (G1 2^24, 2^26, 2^27; G2 2^22), and where the
# non-accumulation time goes, kernel by kernel (nsys, else ncu).
set -u
G=out/gb
chmod +x $G
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
which nsys ncu >> $OUT/gpu.txt 2>&1
{
timeout 150 $G msm --curve g1 --log-sizes 24,26 --windows 0,19,20,21,22 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 131
timeout 100 $G msm --curve g1 --log-sizes 27 --windows 21,22 --warmups 1 --repeats 2 --cpu-check-max-log 14 --seed 132
timeout 100 $G msm --curve g2 --log-sizes 22 --windows 0,15,16,17,18 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 133
} > $OUT/msm.log 2>&1
if which nsys > /dev/null 2>&1; then
  timeout 120 nsys profile -o /tmp/p1 --force-overwrite true $G msm --curve g1 --log-sizes 24,26 --warmups 0 --repeats 1 --cpu-check-max-log 14 --seed 134 > /dev/null 2>&1
  nsys stats --report cuda_gpu_kern_sum --format csv /tmp/p1.nsys-rep > $OUT/kern-g1.csv 2>&1
  timeout 120 nsys profile -o /tmp/p2 --force-overwrite true $G msm --curve g2 --log-sizes 22 --warmups 0 --repeats 1 --cpu-check-max-log 14 --seed 135 > /dev/null 2>&1
  nsys stats --report cuda_gpu_kern_sum --format csv /tmp/p2.nsys-rep > $OUT/kern-g2.csv 2>&1
else
  timeout 150 ncu --metrics gpu__time_duration.sum --csv $G msm --curve g1 --log-sizes 26 --warmups 0 --repeats 1 --cpu-check-max-log 14 --seed 134 > $OUT/kern-g1.csv 2>&1
  timeout 100 ncu --metrics gpu__time_duration.sum --csv $G msm --curve g2 --log-sizes 22 --warmups 0 --repeats 1 --cpu-check-max-log 14 --seed 135 > $OUT/kern-g2.csv 2>&1
fi
grep -E "^\| (lg|[0-9])|overall" $OUT/msm.log
