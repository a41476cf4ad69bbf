#!/bin/bash
# Session 10 call 1: where the MSM accumulation's time goes (ncu), and the key image GPU test.
set -u
tar xzf out/gt3.tgz -C /tmp && cd /tmp/gt3
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
which ncu >> $OUT/gpu.txt 2>&1
cuobjdump --dump-resource-usage ./cuzk-gpu-bench 2>&1 | grep -A1 "Accumulate\|OnesSum\|Ntt\|ntt" | grep -o "Function [^:]*:\|REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*" | paste -d' ' - - - - | cut -c1-220 > $OUT/resources.txt
timeout 120 ./key_image_gpu_test > $OUT/key_image_gpu_test.log 2>&1; echo "key_image_gpu_test rc=$?" >> $OUT/summary.txt
tail -3 $OUT/key_image_gpu_test.log >> $OUT/summary.txt
# plain timings first
timeout 150 ./cuzk-gpu-bench msm --curve g1 --log-sizes 26 --batch 0,32 --warmups 1 --repeats 2 --cpu-check-max-log 16 --seed 11 > $OUT/msm26-plain.log 2>&1
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats --section InstructionStats"
timeout 200 ncu --clock-control none --kernel-name regex:Accumulate --launch-count 2 $S ./cuzk-gpu-bench msm --curve g1 --log-sizes 26 --batch 0,32 --warmups 0 --repeats 1 --cpu-check-max-log 16 --seed 11 > $OUT/ncu-msm26.txt 2>&1
echo "ncu msm rc=$?" >> $OUT/summary.txt
timeout 120 ncu --clock-control none --kernel-name regex:"OnesSum|Accumulate" --launch-count 2 $S ./cuzk-gpu-bench msm --curve g1 --log-sizes 26 --ones-permille 470 --zeros-permille 515 --batch 0 --warmups 0 --repeats 1 --cpu-check-max-log 16 --seed 11 > $OUT/ncu-msm26-witness.txt 2>&1
echo "ncu witness rc=$?" >> $OUT/summary.txt
timeout 90 ncu --clock-control none --launch-count 12 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis ./cuzk-gpu-bench ntt --log-sizes 27 --check-max-log 0 --warmups 0 --repeats 1 > $OUT/ncu-ntt27.txt 2>&1
echo "ncu ntt rc=$?" >> $OUT/summary.txt
cd $OUT && grep -h "total\|PASS\|FAIL" msm26-plain.log | head -20 >> summary.txt
grep -E "^  [A-Za-z].*Kernel|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|Issue Slots Busy|No Eligible|Local Memory|L1/TEX Hit|L2 Hit|Executed Ipc A|Warp Cycles Per Issued|Block Limit Registers" ncu-msm26.txt ncu-msm26-witness.txt | cut -c1-200 >> summary.txt
cat summary.txt; cat resources.txt | head -30
