#!/bin/bash
# Session 10 call 2: XYZZ MSM kernels' occupancy (registers capped) sweep.
set -u
tar xzf out/gt3.tgz -C /tmp && cd /tmp/gt3
B=./cuzk-gpu-bench
timeout 200 $B msm --curve g1 --log-sizes 24,26 --batch 0 --blocks 0,4,5,6 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 21 > $OUT/msm-24-26.log 2>&1; echo "rc=$?" >> $OUT/msm-24-26.log
timeout 120 $B msm --curve g1 --log-sizes 26 --ones-permille 470 --zeros-permille 515 --batch 0 --blocks 0,4,5,6 --warmups 1 --repeats 3 --cpu-check-max-log 16 --seed 22 > $OUT/msm-witness.log 2>&1; echo "rc=$?" >> $OUT/msm-witness.log
timeout 240 $B msm --curve g1 --log-sizes 27 --batch 0,32 --blocks 0,4,5 --warmups 1 --repeats 2 --cpu-check-max-log 16 --seed 23 > $OUT/msm-27.log 2>&1; echo "rc=$?" >> $OUT/msm-27.log
cd $OUT && for f in msm-24-26.log msm-witness.log msm-27.log; do echo "== $f"; grep -E "^\| [0-9]|overall|rc=" $f; done
