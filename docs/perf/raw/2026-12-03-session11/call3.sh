#!/bin/bash
# Session 11 call 3: MulDfma with ReduceWide (even/odd rows) against the SOS
# reduction and Mul; the FpDfma accumulation capped at 3 blocks an SM.
set -u
tar xzf out/s11.tgz -C /tmp && cd /tmp/s11
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
for t in field_gpu_test msm_gpu_test; do
  timeout 150 ./$t > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/$t.log >> $OUT/summary.txt
done
timeout 120 ./cuzk-gpu-bench field --n 1048576 > $OUT/field.log 2>&1; echo "field rc=$?" >> $OUT/summary.txt
timeout 200 ./cuzk-gpu-bench msm --curve g1 --log-sizes 24,26 --batch 0,32 --dfma 0,1 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 32 > $OUT/msm-24-26.log 2>&1; echo "msm rc=$?" >> $OUT/summary.txt
M=sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_active.avg.per_cycle_active,launch__registers_per_thread
timeout 120 ncu --clock-control none --kernel-name regex:"AccumulateKernel|MulChainKernel" --launch-count 60 --metrics $M ./cuzk-gpu-bench msm --curve g1 --log-sizes 24 --batch 0 --dfma 0,1 --warmups 0 --repeats 1 --cpu-check-max-log 10 --seed 33 > $OUT/ncu-msm24.txt 2>&1; echo "ncu msm rc=$?" >> $OUT/summary.txt
timeout 120 ncu --clock-control none --kernel-name regex:"MulChainKernel" --launch-count 96 --metrics $M ./cuzk-gpu-bench field --n 4096 > $OUT/ncu-field.txt 2>&1; echo "ncu field rc=$?" >> $OUT/summary.txt
cd $OUT && grep -E "throughput" field.log >> summary.txt
grep -E "^\| [0-9]|overall" msm-24-26.log >> summary.txt
cat summary.txt
