#!/usr/bin/env bash
# One device-tool call for shifted bases (cuda/msm/shifted_bases.hpp; issues
# 15 and 16), built in a session without a GPU:
#  1. msm_gpu_test (ShiftedBasesMatchCpu among its tests), groth16_gpu_test
#     and witness_only_gpu_test (ShiftedHBasesGiveTheCpuProof; the 8 MiB
#     case needs CUZK_GPU_SLOW=1, ~5 minutes: run it in a call of its own);
#  2. cuzk-gpu-bench msm: G1 2^24 and 2^26 on the plain bases and over
#     shifted bases in the same run, the scalars copied at once or in upload
#     batches (every result checked), then at 2^24 the shifted widths and
#     running-sum segment lengths; `cuzk-gpu-bench kernels` (issue 16's
#     ratios to sppark; CUZK_KERNELS=0 skips it);
#  3. one 8 MiB partition proved as the daemon does, alone on one lane, step
#     by step, with and without the table (cuzk-gpu-bench partition; every
#     proof verified, both equal); then two lanes at once, the witness MSMs
#     beside the next H MSM or on its scratch (partitions a second);
#  4. riding along (device time is scarce): the G1 decompression throughput
#     of issue 17's compressed H (cuzk-gpu-bench decompress, 2^24 records,
#     every point checked; docs/perf/cold-start-next.md assumes ~2.4 s for
#     2^27) and point_gpu_test (its records, both roots, refusals);
#     key_image_gpu_test (session 15: H read compressed, early proving's
#     deferred witness MSMs and a damaged witness section);
#  5. with CUZK_PARTIAL=1 (a call of its own: 2^27 bases take ~25 s to make),
#     tables of 2 and 3 copies at 2^27 (a 32 GiB partition's H MSM, whose
#     full table would not fit) beside the plain MSM.
#   OUT=$OUT bash tools/gpu-host/shifted_bases_run.sh out/gb out/tests.tar.xz
# tests.tar.xz: the GPU test programs and the libstdc++ they need (run with
# LD_LIBRARY_PATH). Prints the tables last; logs in $OUT/logs.tgz.
set -uo pipefail
G=${1:?usage: shifted_bases_run.sh CUZK_GPU_BENCH TESTS_TAR_XZ}
tests=${2:?usage: shifted_bases_run.sh CUZK_GPU_BENCH TESTS_TAR_XZ}
out=${OUT:?set OUT}
logs=$out/logs
mkdir -p "$logs" /tmp/sb-tests
source "$(dirname "$0")/run_lib.sh"
rows=()
ROW_WIDTH=30
chmod +x "$G"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv >"$logs/nvidia-smi.txt" 2>&1
tar -C /tmp/sb-tests -xJf "$tests"
t=$(dirname "$(find /tmp/sb-tests -name msm_gpu_test | head -n 1)")
export LD_LIBRARY_PATH=$t
# A call has 600 s: CUZK_TESTS, CUZK_MSM, CUZK_PARTITION, CUZK_KERNELS (each
# default 1) split the steps over two calls (docs/perf/next-device-calls.md).
if [[ ${CUZK_TESTS:-1} == 1 ]]; then
  for name in msm_gpu_test groth16_gpu_test ntt_gpu_test witness_only_gpu_test point_gpu_test key_image_gpu_test \
    key_image_budget_gpu_test; do
    [[ -x $t/$name ]] || continue
    timed "$name" 200 "$logs/$name.log" "$t/$name" --gtest_color=no
  done
fi
common=(--warmups 1 --repeats 5 --cpu-check-max-log 14)
if [[ ${CUZK_MSM:-1} == 1 ]]; then
# Over the table: the scalars copied at once and in 2 or 3 upload batches
# (session 17: the later batches' copies under the first's sums).
timed "msm 2^24,2^26 plain|shifted" 300 "$logs/msm-shifted.log" \
  "$G" msm --curve g1 --log-sizes 24,26 --shifted 0,1 --upload-batches 1,2,3 "${common[@]}" --seed 1401
# G2 over a table too (session 17: issue 16's G2 ratio, 0.79x plain; model ~0.69x at c = 20).
timed "msm G2 2^22 plain|shifted" 200 "$logs/msm-g2-shifted.log" \
  "$G" msm --curve g2 --log-sizes 22 --shifted 0,1 --upload-batches 1,2 "${common[@]}" --seed 1407
if [[ ${CUZK_SWEEP:-1} == 1 ]]; then  # CUZK_SWEEP=0 skips it (~100 s of a call)
  timed "msm 2^24 shifted sweep" 150 "$logs/msm-sweep.log" \
    "$G" msm --curve g1 --log-sizes 24 --shifted 1 --windows 0,20,21,23,24 --segment-len 0,64,256 "${common[@]}" \
    --seed 1402
fi
fi
if [[ ${CUZK_PARTITION:-1} == 1 ]]; then
timed "partition 8 MiB plain|shifted" 200 "$logs/partition-8mib.log" \
  "$G" partition --sector-size 8MiB --shifted 0,1 --warmups 1 --repeats 5 --seed 1403
# Two lanes as the daemon runs them, the witness MSMs beside the next H MSM
# or on its scratch (session 17's witness_mu against its off switch): the
# GPU's partitions a second with no host pipeline (8 MiB: x15 = proofs a minute).
timed "partition 8 MiB 2 lanes beside 0|1" 240 "$logs/partition-8mib-lanes.log" \
  "$G" partition --sector-size 8MiB --shifted 1 --lanes 2 --witness-beside-h 0,1 --warmups 2 --repeats 20 --seed 1406
fi
if [[ ${CUZK_KERNELS:-1} == 1 ]]; then  # issue 16's Must show: kernels against sppark's figures
  # Every result is checked against the structured-bases reference; the CPU
  # backend's check up to 2^18 here (2^26 takes minutes of the call).
  timed "kernels" 300 "$logs/kernels.log" "$G" kernels --cpu-check-max-log 18
fi
timed "decompress 2^24" 120 "$logs/decompress.log" "$G" decompress --log-n 24 --seed 1405
if [[ ${CUZK_PARTIAL:-0} == 1 ]]; then
  timed "msm 2^27 plain" 200 "$logs/msm-27-plain.log" "$G" msm --curve g1 --log-sizes 27 "${common[@]}" --seed 1404
  timed "msm 2^27 2|3 copies" 300 "$logs/msm-27-partial.log" \
    "$G" msm --curve g1 --log-sizes 27 --shifted 1 --windows 22,24 --shifted-copies 2,3 "${common[@]}" --seed 1404
fi
(cd "$logs" && tar czf "$out/logs.tgz" .)
echo
grep -hE '^\[  (PASSED|FAILED)|FAILED|8MiB' "$logs"/*_test.log | head -30
grep -hE '^shifted bases|^\| (lg|[0-9])|overall' "$logs"/msm-*.log
[[ -f $logs/kernels.log ]] && tail -n 20 "$logs/kernels.log"
grep -hE '^shifted=|^\||^partition:' "$logs/partition-8mib.log" "$logs/partition-8mib-lanes.log" 2>/dev/null
grep -hE '^decompress 2' "$logs/decompress.log"
printf '\n%-30s %-6s %9s  %s\n' step result time log
printf '%s\n' "${rows[@]}"
