#!/usr/bin/env bash
# One device-tool call: the batched affine bucket accumulation (issue 16)
# against the XYZZ accumulation, same binary, same scalars, every result
# checked (struct = the structured-bases reference, cpu = the CPU MSM up to
# 2^16, agree = equal to the first variant's result).
#   OUT=$OUT bash tools/gpu-host/msm_batch_run.sh BIN_DIR [PARTS]
# BIN_DIR holds cuzk-gpu-bench. PARTS (default "field g1 g1w g2 g1big"):
#   field  device field checks (Fermat and safegcd inversion included), inversion throughput
#   g1     random scalars 2^20, 2^24, 2^26, batch 0,8,16,32
#   g1w    witness-like 2^26 (51.5% zeros, 47.5% ones), split, batch 0,16
#   g2     random 2^22, batch 0,8,16
#   g1big  random 2^27 at c=22 (a 32 GiB partition's H MSM), batch 0,16
set -uo pipefail
bin=${1:?usage: msm_batch_run.sh BIN_DIR [PARTS]}
parts=${2:-field g1 g1w g2 g1big}
out=${OUT:-/tmp/msm-batch}
mkdir -p "$out"
source "$(dirname "$0")/run_lib.sh"
rows=()
ROW_WIDTH=12
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$out/nvidia-smi.txt"
b=$bin/cuzk-gpu-bench
common=(--repeats 3 --warmups 1 --cpu-check-max-log 16)
for part in $parts; do
  case $part in
    field) timed field 120 "$out/field.log" "$b" field --n 1048576 ;;
    g1) timed g1 300 "$out/g1.log" "$b" msm --curve g1 --log-sizes 20,24,26 --batch 0,8,16,32 "${common[@]}" ;;
    g1w) timed g1w 200 "$out/g1w.log" "$b" msm --curve g1 --log-sizes 26 --zeros-permille 515 --ones-permille 475 \
      --batch 0,16 "${common[@]}" ;;
    g2) timed g2 240 "$out/g2.log" "$b" msm --curve g2 --log-sizes 22 --batch 0,8,16 "${common[@]}" ;;
    g1big) timed g1big 300 "$out/g1big.log" "$b" msm --curve g1 --log-sizes 27 --windows 22 --batch 0,16 \
      "${common[@]}" ;;
    *) echo "unknown part $part" >&2 ;;
  esac
done
echo
for part in $parts; do
  [[ -f $out/$part.log ]] || continue
  echo "== $part"
  grep -E '^\||overall|throughput|field check .*(inv|FAIL)' "$out/$part.log"
done
printf '%s\n' "${rows[@]}"
