#!/bin/bash
# Session 11 call 1: MulDfma (limb products on the FP64 pipe) checked and timed
# against Mul: field throughput, then the G1 MSM with the accumulation on each.
set -u
tar xzf out/s11.tgz -C /tmp && cd /tmp/s11
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
for t in field_gpu_test msm_gpu_test key_image_budget_gpu_test; do
  timeout 150 ./$t > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -3 $OUT/$t.log >> $OUT/summary.txt
done
timeout 120 ./cuzk-gpu-bench field --n 1048576 > $OUT/field.log 2>&1; echo "field rc=$?" >> $OUT/summary.txt
timeout 200 ./cuzk-gpu-bench msm --curve g1 --log-sizes 24,26 --batch 0,32 --dfma 0,1 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 31 > $OUT/msm-24-26.log 2>&1; echo "msm rc=$?" >> $OUT/summary.txt
cd $OUT && grep -E "field check|throughput" field.log >> summary.txt
grep -E "^\| [0-9]|overall" msm-24-26.log >> summary.txt
cat summary.txt
