#!/usr/bin/env bash
# Checks and times everything GPU-side in one go on a GPU host that has only
# the CUDA driver (the binaries are self-contained: static cudart, static gtest).
#   tools/cuzk-gpu-bench/run_on_gpu_host.sh <bin dir> [out dir] [ntt sizes]
# CUZK_RUN selects the parts (default "ntt,msm"): ntt = field/NTT tests and
# benchmarks; msm = point/MSM/Groth16 tests and `cuzk-gpu-bench msm` for G1
# over CUZK_MSM_SIZES (16-26) with windows CUZK_MSM_WINDOWS (0 = default) and
# for G2 over CUZK_MSM_G2_SIZES (16-22; empty: skip), then, if CUZK_MSM_SWEEP
# is set (e.g. "24:16,17,18,19,20,21"), a G1 window sweep at one size.
# Full logs go to <out dir>; the summary tables are printed last.
set -uo pipefail
bin=${1:?bin dir}
out=${2:-/tmp/cuzk-gpu-out}
sizes=${3:-10-27}
run=${CUZK_RUN:-ntt,msm}
mkdir -p "$out"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$out/nvidia-smi.txt"
"$bin/cuzk-gpu-bench" info
tests=()
[[ $run == *ntt* ]] && tests+=(field_emulation_test ntt_emulation_test field_gpu_test ntt_gpu_test)
[[ $run == *msm* ]] && tests+=(msm_parts_emulation_test point_gpu_test msm_gpu_test groth16_gpu_test)
for t in "${tests[@]}"; do
  if timeout 300 "$bin/$t" --gtest_brief=1 > "$out/$t.log" 2>&1; then
    echo "$t: PASS ($(grep -E '^\[==========\] [0-9]+ tests? from' "$out/$t.log" | grep -oE '[0-9]+ tests?' | head -1) ran;" \
      "$(grep -c '^\[  SKIPPED' "$out/$t.log") skipped)"
  else
    echo "$t: FAIL"; tail -30 "$out/$t.log"; status=1
  fi
done
if [[ $run == *ntt* ]]; then
  "$bin/cuzk-gpu-bench" field 2>&1 | tee "$out/field.log" || status=1
  "$bin/cuzk-gpu-bench" ntt --log-sizes "$sizes" --radix-logs "${CUZK_RADIX_LOGS:-2,3}" --fuse "${CUZK_FUSE:-1,0}" 2>&1 | tee "$out/ntt.log" || status=1
fi
if [[ $run == *msm* ]]; then
  "$bin/cuzk-gpu-bench" msm --log-sizes "${CUZK_MSM_SIZES:-16-26}" --windows "${CUZK_MSM_WINDOWS:-0}" 2>&1 | tee "$out/msm.log" || status=1
  g2_sizes=${CUZK_MSM_G2_SIZES-16-22}
  if [[ -n $g2_sizes ]]; then
    "$bin/cuzk-gpu-bench" msm --curve g2 --log-sizes "$g2_sizes" --cpu-check-max-log 18 2>&1 | tee "$out/msm_g2.log" || status=1
  fi
  if [[ -n ${CUZK_MSM_SWEEP:-} ]]; then
    "$bin/cuzk-gpu-bench" msm --log-sizes "${CUZK_MSM_SWEEP%%:*}" --windows "${CUZK_MSM_SWEEP#*:}" --warmups 1 --repeats 3 \
      2>&1 | tee "$out/msm_sweep.log" || status=1
  fi
fi
echo "== summary =="
if [[ $run == *ntt* ]]; then
  grep -E '^\| |overall' "$out/ntt.log"
  grep -E 'FAIL|throughput' "$out/field.log"
fi
if [[ $run == *msm* ]]; then
  [[ -f $out/msm_sweep.log ]] && grep -E '^\| [0-9]|overall' "$out/msm_sweep.log"
  grep -E '^\| |overall' "$out/msm.log"
  [[ -f $out/msm_g2.log ]] && grep -E '^\| [0-9]|overall' "$out/msm_g2.log"
fi
exit $status
