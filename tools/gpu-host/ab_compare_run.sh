#!/usr/bin/env bash
# One device-tool call comparing two builds of the GPU kernels in the same
# run (A = before a change, B = after): the GPU tests of B, then the same
# cuzk-gpu-bench commands with each binary, alternating, every result checked.
#   OUT=$OUT bash tools/gpu-host/ab_compare_run.sh A.tar.xz B.tar.xz
# Each tarball holds one folder with cuzk-gpu-bench; B's also the GPU test
# programs (field, point, msm, ntt, abc, groth16, witness_only). Prints the
# tables last; all logs in $OUT/logs.tgz.
set -uo pipefail
a_tar=${1:?usage: ab_compare_run.sh A.tar.xz B.tar.xz}
b_tar=${2:?usage: ab_compare_run.sh A.tar.xz B.tar.xz}
out=${OUT:-/tmp/ab}
logs=$out/logs
mkdir -p "$logs"
source "$(dirname "$0")/run_lib.sh"
a=$(unpack_bench "$a_tar" /tmp/ab-a) && b=$(unpack_bench "$b_tar" /tmp/ab-b) || exit 2
rows=()
ROW_WIDTH=24
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv >"$logs/nvidia-smi.txt"
timed B-field 120 "$logs/B-field.log" "$b/cuzk-gpu-bench" field --n 1048576
for t in field_gpu_test point_gpu_test msm_gpu_test ntt_gpu_test abc_gpu_test groth16_gpu_test witness_only_gpu_test; do
  [[ -x $b/$t ]] && timed "B-$t" 240 "$logs/B-$t.log" "$b/$t"
done
common=(--repeats 3 --warmups 1 --cpu-check-max-log 16)
for v in A B; do
  bin=$a
  [[ $v == B ]] && bin=$b
  timed "$v-g1" 200 "$logs/$v-g1.log" "$bin/cuzk-gpu-bench" msm --curve g1 --log-sizes 24,26 --batch 0,32 --seed 7 "${common[@]}"
  timed "$v-g2" 120 "$logs/$v-g2.log" "$bin/cuzk-gpu-bench" msm --curve g2 --log-sizes 22 --seed 7 "${common[@]}"
  timed "$v-ntt" 120 "$logs/$v-ntt.log" "$bin/cuzk-gpu-bench" kernels --ntt 24,27 --g1 24 --g2 22 --cpu-check-max-log 16
  timed "$v-g1-27" 240 "$logs/$v-g1-27.log" "$bin/cuzk-gpu-bench" msm --curve g1 --log-sizes 27 --windows 22 --batch 0,32 \
    --seed 7 "${common[@]}"
done
tar -C "$out" -czf "$out/logs.tgz" logs
for f in "$logs"/B-field.log "$logs"/[AB]-g*.log "$logs"/[AB]-ntt.log; do
  echo "== $(basename "$f")"
  grep -E '^\| [0-9]|^\| (G1|G2|NTT|forward|inverse)|overall|throughput|FAIL' "$f"
done
for f in "$logs"/B-*_test.log; do echo "== $(basename "$f"): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$f" | tr '\n' ' ')"; done
printf '%s\n' "${rows[@]}"
