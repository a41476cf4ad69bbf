#!/usr/bin/env bash
# One device-tool call: Groth16's H in six NTTs against bellperson's seven
# (cuzk-gpu-bench h, same run, results equal and CPU-checked), and the G2
# MSM with its reduction additions out of line (A = the build before, B =
# after; alternating, every result checked), after B's GPU tests.
#   OUT=$OUT bash tools/gpu-host/h_g2_run.sh A.tar.xz B.tar.xz
# Each tarball holds one folder with cuzk-gpu-bench; B's also the GPU test
# programs. Prints the tables last; all logs in $OUT/logs.tgz.
set -uo pipefail
a_tar=${1:?usage: h_g2_run.sh A.tar.xz B.tar.xz}
b_tar=${2:?usage: h_g2_run.sh A.tar.xz B.tar.xz}
out=${OUT:-/tmp/hg2}
logs=$out/logs
mkdir -p "$logs"
source "$(dirname "$0")/run_lib.sh"
a=$(unpack_bench "$a_tar" /tmp/hg2-a) && b=$(unpack_bench "$b_tar" /tmp/hg2-b) || exit 2
rows=()
ROW_WIDTH=28
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv >"$logs/nvidia-smi.txt"
for t in groth16_gpu_test msm_gpu_test witness_only_gpu_test field_gpu_test point_gpu_test ntt_gpu_test abc_gpu_test; do
  [[ -x $b/$t ]] && timed "B-$t" 240 "$logs/B-$t.log" "$b/$t"
done
timed B-field 120 "$logs/B-field.log" "$b/cuzk-gpu-bench" field --n 1048576
timed B-h 240 "$logs/B-h.log" "$b/cuzk-gpu-bench" h --log-sizes 20,24,26,27 --repeats 5 --warmups 2
common=(--repeats 5 --warmups 2 --cpu-check-max-log 16 --seed 7)
for run in A1 B1 A2 B2; do
  v=${run:0:1}
  bin=$a
  [[ $v == B ]] && bin=$b
  timed "$run-g2" 150 "$logs/$run-g2.log" "$bin/cuzk-gpu-bench" msm --curve g2 --log-sizes 20,22 "${common[@]}"
  [[ $run == ?1 ]] && timed "$v-g2w" 150 "$logs/$v-g2w.log" "$bin/cuzk-gpu-bench" msm --curve g2 --log-sizes 24 \
    --zeros-permille 490 --ones-permille 490 --density-permille 300 "${common[@]}"
done
tar -C "$out" -czf "$out/logs.tgz" logs
echo "== B-h.log"; grep -E '^\| |overall' "$logs/B-h.log"
for f in "$logs"/[AB]*-g2*.log; do
  echo "== $(basename "$f")"
  grep -E '^\| [0-9]|^\| (G1|G2)|overall|FAIL' "$f"
done
echo "== B-field.log: $(grep -cE 'PASS' "$logs/B-field.log") PASS, $(grep -cE 'FAIL' "$logs/B-field.log") FAIL"
for f in "$logs"/B-*_test.log; do echo "== $(basename "$f"): $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$f" | tr '\n' ' ')"; done
printf '%s\n' "${rows[@]}"
