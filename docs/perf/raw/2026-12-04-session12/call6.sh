#!/bin/bash
# Session 12 call 6 (bundle of 569dcb3): with MulSub and SquareFused the XYZZ
# accumulation got 8% faster and the batched affine one 0.5%: which wins now
# at the sizes where pippenger::DefaultBatch picks the batched one (2^27, c = 22)?
set -u
mkdir -p /tmp/b && tar xzf out/cuzk-h200.tar.gz -C /tmp/b
B=$(echo /tmp/b/cuzk-*/)
for seed in 91 92; do
  timeout 200 $B/bin/cuzk-gpu-bench msm --curve g1 --log-sizes 26,27 --batch 0,32 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed $seed
done > $OUT/msm.log 2>&1
grep -E "^\| (lg|[0-9])|overall" $OUT/msm.log
