#!/usr/bin/env bash
# Checks and times everything GPU-side in one go on a GPU host that has only
# the CUDA driver (the binaries are self-contained: static cudart, static gtest).
#   tools/cuzk-gpu-bench/run_on_gpu_host.sh <bin dir> [out dir] [ntt sizes]
# Full logs go to <out dir>; the summary table is printed last.
set -uo pipefail
bin=${1:?bin dir}
out=${2:-/tmp/cuzk-gpu-out}
sizes=${3:-10-27}
mkdir -p "$out"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$out/nvidia-smi.txt"
"$bin/cuzk-gpu-bench" info
for t in field_emulation_test ntt_emulation_test field_gpu_test ntt_gpu_test; do
  if "$bin/$t" --gtest_brief=1 > "$out/$t.log" 2>&1; then
    echo "$t: PASS ($(grep -c '^\[       OK' "$out/$t.log") tests ok)"
  else
    echo "$t: FAIL"; tail -30 "$out/$t.log"; status=1
  fi
done
"$bin/cuzk-gpu-bench" field 2>&1 | tee "$out/field.log" || status=1
"$bin/cuzk-gpu-bench" ntt --log-sizes "$sizes" --radix-logs "${CUZK_RADIX_LOGS:-2,3}" --fuse "${CUZK_FUSE:-1,0}" 2>&1 | tee "$out/ntt.log" || status=1
echo "== summary =="
grep -E '^\| |overall' "$out/ntt.log"
grep -E 'FAIL|throughput' "$out/field.log"
exit $status
