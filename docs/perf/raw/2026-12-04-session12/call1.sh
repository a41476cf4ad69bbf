#!/bin/bash
# Session 12 call 1: Sqr (cross products once) and MulSub (y3 with one
# reduction) in the XYZZ and batched affine accumulations, against the
# binary of f44ad6e in the same call (old = f44ad6e, new = cf1b7ae+).
set -u
tar xzf out/s12.tgz -C /tmp && cd /tmp/s12
export LD_LIBRARY_PATH=$PWD/lib
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
for t in field_gpu_test msm_gpu_test groth16_gpu_test; do
  timeout 200 ./$t > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/$t.log >> $OUT/summary.txt
done
timeout 120 ./cuzk-gpu-bench field --n 1048576 > $OUT/field.log 2>&1; echo "field rc=$?" >> $OUT/summary.txt
# A/B twice, alternating: G1 2^24 and 2^26 XYZZ (batch 0), 2^26 and 2^27 batched (32).
for round in 1 2; do
  for v in old new; do
    timeout 150 ./gpu-bench-$v msm --curve g1 --log-sizes 24,26 --batch 0 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 51 > $OUT/msm-xyzz-$v-$round.log 2>&1; echo "xyzz $v $round rc=$?" >> $OUT/summary.txt
    timeout 150 ./gpu-bench-$v msm --curve g1 --log-sizes 26,27 --batch 32 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 52 > $OUT/msm-batched-$v-$round.log 2>&1; echo "batched $v $round rc=$?" >> $OUT/summary.txt
  done
done
cd $OUT && for f in msm-*.log; do echo "== $f"; grep -E "^\| [0-9]|overall" $f; done >> summary.txt
grep -E "throughput" field.log >> summary.txt
cat summary.txt
