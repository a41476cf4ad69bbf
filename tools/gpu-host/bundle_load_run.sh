#!/usr/bin/env bash
# One device-tool call on a bare GPU host: the bundle's host check, a 2 KiB
# smoke with a small load, the GPU tests that were carried, then an 8 MiB
# sector (4 partitions of 2^24 constraints) with its local setup (GPU first,
# CPU if that fails) and a load of several jobs through the daemon. Every step
# has its own time limit and writes its log under $OUT as it goes, so a call
# cut short still returns what it finished. A summary table is printed last.
#
#   tools/gpu-host/bundle_load_run.sh TARBALL [GPU_TEST_BINARY...]
#
# Environment: OUT (required), CUZK_LOAD_JOBS (8 MiB load jobs, default 3),
# CUZK_LOAD_CONCURRENCY (default = jobs), CUZK_SYNTH (synthesis_concurrency,
# default 4; a list such as "6 3" runs one load per value), CUZK_SIZE (the
# large sector, default 8MiB), CUZK_SKIP (comma list of steps to skip:
# smoke2k,tests,8mib), CUZK_SETUP_S (limit of the GPU setup, default 240),
# CUZK_TEST_LIMIT_S (each GPU test binary's limit, default 180),
# CUZK_WITNESS_ONLY (the daemon's [pipeline] witness_only; a list such as
# "true false" runs one load per value, default true), CUZK_SHIFTED_H (the
# daemon's [gpus] shifted_h_bases; a list such as "true false" runs one load
# per value, default true as in the daemon), CUZK_LANES (the daemon's [gpus]
# gpu_workers_per_device; a list such as "2 3" runs one load per value,
# default 2 as in the daemon).
set -uo pipefail
tarball=${1:?tarball}
shift
: "${OUT:?set OUT}"
jobs=${CUZK_LOAD_JOBS:-3}
conc=${CUZK_LOAD_CONCURRENCY:-$jobs}
synth=${CUZK_SYNTH:-4}
skip=",${CUZK_SKIP:-},"
rows=()
t_start=$(date +%s)
ROW_WIDTH=34
# shellcheck source=tools/gpu-host/run_lib.sh
source "$(dirname "$0")/run_lib.sh"

mkdir -p /tmp/b && tar -xzf "$tarball" -C /tmp/b || exit 2
bundle=$(echo /tmp/b/cuzk-*/)
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv >"$OUT/nvidia-smi.txt" 2>&1
nproc >>"$OUT/nvidia-smi.txt"; free -g >>"$OUT/nvidia-smi.txt"
timed "cuzk-check" 60 "$OUT/check.log" "$bundle/bin/cuzk-check"

if [[ $skip != *,smoke2k,* ]]; then
  timed "smoke 2KiB + 4 jobs" 240 "$OUT/smoke-2k.log" \
    "$bundle/bin/cuzk-smoke" --keep --work /tmp/s2k --jobs 4 --synthesis-concurrency 2
  cp /tmp/s2k/daemon.log "$OUT/daemon-2k.log" 2>/dev/null
  cp /tmp/s2k/timeline.svg "$OUT/timeline-2k.svg" 2>/dev/null
fi

if [[ $skip != *,tests,* ]]; then
  for t in "$@"; do
    timed "$(basename "$t")" "${CUZK_TEST_LIMIT_S:-180}" "$OUT/$(basename "$t").log" "$t" --gtest_color=no
  done
fi

if [[ $skip != *,8mib,* ]]; then
  big=${CUZK_SIZE:-8MiB}
  w=/tmp/s-$big
  mkdir -p "$w"
  timed "$big gen-vanilla" 200 "$OUT/$big-gen.log" \
    "$bundle/bin/cuzk-cli" snap gen-vanilla --sector-size "$big" --seed 1 --out "$w/sector"
  if ! timed "$big setup --gpu" "${CUZK_SETUP_S:-240}" "$OUT/$big-setup-gpu.log" \
      "$bundle/bin/cuzk-cli" snap setup --sector-size "$big" --param-cache "$w/params" --gpu; then
    rm -rf "$w/params"
    timed "$big setup (CPU)" 300 "$OUT/$big-setup-cpu.log" \
      "$bundle/bin/cuzk-cli" snap setup --sector-size "$big" --param-cache "$w/params"
  fi
  ls -l "$w/params" >>"$OUT/$big-setup-gpu.log" 2>&1
  for wo in ${CUZK_WITNESS_ONLY:-true}; do
  for sh in ${CUZK_SHIFTED_H:-true}; do
  for lanes in ${CUZK_LANES:-2}; do
  for s in $synth; do  # CUZK_SYNTH may list several synthesis_concurrency values: one load each
    left=$((590 - ($(date +%s) - t_start)))
    if ((jobs == 0)); then load=(); else load=(--jobs "$jobs" --concurrency "$conc"); fi
    run=$((${run:-0} + 1))
    tag=$big-s$s-wo$wo-sh$sh-l$lanes-$run  # the run's number: a list may repeat a value (CUZK_SYNTH="8 8")
    if ((left > 60)); then
      timed "smoke $big + $jobs jobs, synth $s, wo $wo, sh $sh, lanes $lanes" "$left" "$OUT/smoke-$tag.log" \
        "$bundle/bin/cuzk-smoke" --keep --work "$w" --sector-size "$big" "${load[@]}" \
        --synthesis-concurrency "$s" --pinned-limit "${CUZK_PINNED_LIMIT:-16GiB}" \
        --budget "${CUZK_BUDGET:-auto}" --witness-only "$wo" --shifted-h-bases "$sh" --gpu-workers "$lanes"
    else
      row "smoke $big synth $s wo $wo sh $sh lanes $lanes" skip "-" "only ${left}s left"
    fi
    cp "$w/daemon.log" "$OUT/daemon-$tag.log" 2>/dev/null
    # The GPU start's steps (GPU_TIMING), medians over the load's partitions.
    grep 'GPU_TIMING' "$OUT/daemon-$tag.log" 2>/dev/null | step_medians >"$OUT/gpu-steps-$tag.txt"
    cp "$w/timeline.svg" "$OUT/timeline-$tag.svg" 2>/dev/null
  done
  done
  done
  done
fi

# The device tool returns few files: everything in one archive too.
(cd "$OUT" && tar czf /tmp/all-logs.tgz --exclude=all-logs.tgz . && mv /tmp/all-logs.tgz "$OUT/")

echo
grep -h -E 'utilization|busy|proofs/min|^PASS|^FAIL|cuzk-smoke:' "$OUT"/smoke-*.log 2>/dev/null | tail -40
grep -h -E '^\[  (PASSED|FAILED)|FAILED' "$OUT"/*_test.log 2>/dev/null | head -20
for f in "$OUT"/gpu-steps-*.txt; do [[ -s $f ]] && { echo "$(basename "$f"):"; cat "$f"; }; done
echo
printf '%-34s %-6s %8s  %s\n' step result time log
printf '%s\n' "${rows[@]}"
