#!/bin/bash
# Session 12 call 4: SquareFused (each cross product once, in Mul's rows)
# against 7ef97a6's binary in the same call, and the GPU tests (call 4b:
# CALL4_TESTS= after 4a's wrapper mistake: the bundle's bin/ holds scripts
# that exec ../libexec/).
set -u
REPO=$PWD
tar xJf out/s12.tgz -C /tmp && mkdir -p /tmp/b && tar xzf out/cuzk-h200.tar.gz -C /tmp/b && cd /tmp/s12 && printf '#!/bin/bash\nexec %s "$@"\n' $(echo /tmp/b/cuzk-*/bin/cuzk-gpu-bench) > gpu-bench-new && chmod +x gpu-bench-new
export LD_LIBRARY_PATH=$PWD/lib
mkdir -p $OUT/logs
for t in ${CALL4_TESTS-field_gpu_test point_gpu_test msm_gpu_test groth16_gpu_test}; do
  timeout 150 ./$t > $OUT/logs/$t.log 2>&1; echo "$t rc=$?" >> $OUT/summary.txt; tail -1 $OUT/logs/$t.log >> $OUT/summary.txt
done
timeout 100 ./gpu-bench-new field --n 262144 > $OUT/logs/field.log 2>&1; echo "field rc=$?" >> $OUT/summary.txt
for v in old new old new; do
  timeout 100 ./gpu-bench-$v msm --curve g1 --log-sizes 24,26 --batch 0 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 81 >> $OUT/logs/msm-xyzz-$v.log 2>&1; echo "xyzz $v rc=$?" >> $OUT/summary.txt
done
for v in old new; do
  timeout 100 ./gpu-bench-$v msm --curve g1 --log-sizes 27 --batch 32 --warmups 1 --repeats 3 --cpu-check-max-log 14 --seed 82 >> $OUT/logs/msm-batched-$v.log 2>&1; echo "batched $v rc=$?" >> $OUT/summary.txt
done
(cd $OUT/logs && for f in msm-*.log; do echo "== $f"; grep -E "^\| [0-9]" $f; done; grep -E "throughput|FAIL" field.log) >> $OUT/summary.txt
cat $OUT/summary.txt
(cd $OUT && tar czf logs.tgz logs && rm -rf logs)
