#!/bin/bash
# Session 12 call 2: MulSub as fused Mul rows (one reduction for y3) in the
# XYZZ accumulation, against f44ad6e's binary in the same call.
set -u
tar xzf out/s12.tgz -C /tmp && cd /tmp/s12
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p $OUT/logs
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/logs/gpu.txt
for t in field_gpu_test msm_gpu_test groth16_gpu_test; do
  timeout 200 ./$t > $OUT/logs/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/logs/$t.log >> $OUT/summary.txt
done
timeout 120 ./gpu-bench-new field --n 1048576 > $OUT/logs/field.log 2>&1; echo "field rc=$?" >> $OUT/summary.txt
for round in 1 2; do
  for v in old new; do
    timeout 150 ./gpu-bench-$v msm --curve g1 --log-sizes 24,26 --batch 0 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 61 > $OUT/logs/msm-xyzz-$v-$round.log 2>&1; echo "xyzz $v $round rc=$?" >> $OUT/summary.txt
    timeout 150 ./gpu-bench-$v msm --curve g1 --log-sizes 27 --batch 32 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 62 > $OUT/logs/msm-batched-$v-$round.log 2>&1; echo "batched $v $round rc=$?" >> $OUT/summary.txt
  done
  timeout 100 ./gpu-bench-new msm --curve g2 --log-sizes 22 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 63 > $OUT/logs/msm-g2-new-$round.log 2>&1; echo "g2 new $round rc=$?" >> $OUT/summary.txt
done
cd $OUT/logs && for f in msm-*.log; do echo "== $f"; grep -E "^\| [0-9]|overall" $f; done >> ../summary.txt
grep -E "throughput" field.log >> ../summary.txt
cd $OUT && tar czf logs.tgz logs && rm -rf logs
cat summary.txt
