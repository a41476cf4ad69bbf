#!/bin/bash
# Session 11 call 4: the XYZZ accumulation with both pipes (FpBoth: MulDfma for
# 4 of madd-2008-s's 10 products) against Mul only and MulDfma only.
set -u
tar xzf out/s11.tgz -C /tmp && cd /tmp/s11
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
for t in msm_gpu_test point_gpu_test field_gpu_test; do
  timeout 150 ./$t > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/$t.log >> $OUT/summary.txt
done
timeout 200 ./cuzk-gpu-bench msm --curve g1 --log-sizes 24,26 --batch 0 --dfma 0,1,2 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 41 > $OUT/msm-24-26.log 2>&1; echo "msm rc=$?" >> $OUT/summary.txt
timeout 150 ./cuzk-gpu-bench msm --curve g1 --log-sizes 26 --ones-permille 470 --zeros-permille 515 --batch 0 --dfma 0,2 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 42 > $OUT/msm-witness.log 2>&1; echo "msm witness rc=$?" >> $OUT/summary.txt
M=sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,launch__registers_per_thread,gpu__time_duration.sum
timeout 120 ncu --clock-control none --kernel-name regex:"AccumulateKernel" --launch-count 6 --metrics $M ./cuzk-gpu-bench msm --curve g1 --log-sizes 24 --batch 0 --dfma 0,1,2 --warmups 0 --repeats 1 --cpu-check-max-log 10 --seed 43 > $OUT/ncu-msm24.txt 2>&1; echo "ncu msm rc=$?" >> $OUT/summary.txt
cd $OUT && grep -E "^\| [0-9]|overall" msm-24-26.log msm-witness.log >> summary.txt
grep -E "AccumulateKernel<|pct_of|per_cycle|registers_per|duration" ncu-msm24.txt | sed 's/  */ /g' | cut -c1-120 >> summary.txt
cat summary.txt
