#!/bin/bash
# Session 12 call 7: the GPU tests and the field/MSM figures after the review
# fixes (SquareFused's even chain restructured; same operations).
set -u
tar xJf out/s12.tgz -C /tmp && cd /tmp/s12
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p $OUT/logs
for t in field_gpu_test point_gpu_test msm_gpu_test groth16_gpu_test; do
  timeout 120 ./$t > $OUT/logs/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/logs/$t.log >> $OUT/summary.txt
done
timeout 60 ./cuzk-gpu-bench field --n 262144 > $OUT/logs/field.log 2>&1; echo "field rc=$?" >> $OUT/summary.txt
timeout 60 ./cuzk-gpu-bench msm --curve g1 --log-sizes 24,26 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 101 > $OUT/logs/msm.log 2>&1; echo "msm rc=$?" >> $OUT/summary.txt
(cd $OUT/logs && grep -E "^\| [0-9]|overall" msm.log; grep -E "throughput .*(even-odd|square|mul-sub)|FAIL" field.log) >> $OUT/summary.txt
(cd $OUT && tar czf logs.tgz logs && rm -rf logs)
cat $OUT/summary.txt
