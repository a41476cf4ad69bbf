#!/usr/bin/env bash
# One short device-tool call: GPU tests from out/gt.tgz, the 8 MiB load straight to the GPU evicted and
# loaded again (direct_reload_run.sh), and the 2^26 G1 MSM at the default width against c = 20.
#   OUT=... tools/gpu-host/gpu_tests_reload_run.sh   (carry out/cuzk-h200.tar.gz, out/gt.tgz)
set -uo pipefail
: "${OUT:?}"
mkdir -p /tmp/gt && tar -xzf out/gt.tgz -C /tmp/gt || exit 2
for t in msm_gpu_test groth16_gpu_test witness_only_gpu_test key_image_gpu_test; do
  timeout 200 /tmp/gt/gt/$t --gtest_filter='-*SnapDealsPartition*' >"$OUT/$t.log" 2>&1
  echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/$t.log" | tr '\n' ' ')"
done
mkdir -p "$OUT/dr"
OUT=$OUT/dr timeout 240 bash tools/gpu-host/direct_reload_run.sh out/cuzk-h200.tar.gz >"$OUT/dr/summary.txt" 2>&1
echo "direct_reload rc=$?"
bundle=$(echo /tmp/dr/cuzk-*/)
timeout 150 "$bundle/bin/cuzk-gpu-bench" msm --curve g1 --log-sizes 26 --windows 0,20 --repeats 3 --warmups 1 \
  --cpu-check-max-log 16 --seed 7 >"$OUT/msm26.log" 2>&1
echo "msm26 rc=$?"
grep -E '^2\^26' "$OUT/msm26.log" | cut -c1-260
tail -22 "$OUT/dr/summary.txt"
