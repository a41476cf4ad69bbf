#!/usr/bin/env bash
# One device-tool call on a bare GPU host: warm 32 GiB throughput with one
# and with two lanes (CudaBackendOptions::lanes = [gpus]
# gpu_workers_per_device), in the same call on the same parameter set.
#   1. the GPU tests carried in TESTS_TGZ (optional), each with a time limit;
#   2. a 32 GiB SnapDeals parameter set made with the GPU setup;
#   3. for each of CUZK_WORKERS (default "2 1"): a daemon with the image
#      cache (the first one compiles and decodes and writes the images, the
#      next ones load them), one warm-up proof, the host copy's release, then
#      CUZK_SECTORS (default 3) sectors 2 at a time (cuzk-bench batch) with
#      the GPU's utilization sampled, and the median of every GPU_TIMING step
#      of the batch's partitions.
# A summary table is printed last; every log is under $OUT.
#
#   OUT=... tools/gpu-host/lanes_run.sh BUNDLE_TGZ [TESTS_TGZ]
set -uo pipefail
tarball=${1:?bundle tarball}
tests_tgz=${2:-}
: "${OUT:?set OUT}"
size=${CUZK_SIZE:-32GiB}
cache=${CUZK_CACHE_DIR:-/dev/shm/cuzk-cache}
t_start=$(date +%s)
rows=()
ROW_WIDTH=44
# shellcheck source=run_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_lib.sh" || exit 2

mkdir -p /tmp/b && tar -xzf "$tarball" -C /tmp/b || exit 2
bundle=$(echo /tmp/b/cuzk-*/)
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm --format=csv >"$OUT/host.txt" 2>&1

if [[ -n $tests_tgz ]]; then
  mkdir -p /tmp/t && tar -xzf "$tests_tgz" -C /tmp/t || exit 2
  for t in /tmp/t/*_test; do
    [[ -x $t ]] || continue
    timed "test $(basename "$t")" 240 "$OUT/$(basename "$t").log" "$t"
    row "  $(basename "$t")" "-" "-" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$(basename "$t").log" | paste -sd' ')"
  done
fi

w=/tmp/s-$size
mkdir -p "$w"
timed "$size gen-vanilla" 200 "$OUT/gen.log" \
  "$bundle/bin/cuzk-cli" snap gen-vanilla --sector-size "$size" --seed 1 --out "$w/sector" || exit 1
timed "$size setup --gpu" "${CUZK_SETUP_S:-320}" "$OUT/setup.log" \
  "$bundle/bin/cuzk-cli" snap setup --sector-size "$size" --param-cache "$w/params" --gpu || exit 1
rm -rf "$cache"

run_daemon() {  # run_daemon WORKERS
  local workers=$1 tag="w$1" t0 dpid ready grpc n_before smi
  cat >"$w/cuzk-$tag.toml" <<EOF
[daemon]
listen = "127.0.0.1:0"
status_listen = "127.0.0.1:0"
shutdown_grace = "30s"
[memory]
total_budget = "${CUZK_BUDGET:-80GiB}"
pinned_limit = "16GiB"
[pipeline]
synthesis_concurrency = ${CUZK_SYNTH:-3}
witness_only = true
[gpus]
gpu_workers_per_device = $workers
[srs]
param_cache = "$w/params"
cache_dir = "$cache"
[logging]
level = "info"
EOF
  t0=$(date +%s.%N)
  "$bundle/bin/cuzk-daemon" --config "$w/cuzk-$tag.toml" >"$w/daemon-$tag.out" 2>"$OUT/daemon-$tag.log" &
  dpid=$!
  for _ in $(seq 600); do
    grep -q '^READY ' "$w/daemon-$tag.out" 2>/dev/null && break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.1
  done
  ready=$(grep '^READY ' "$w/daemon-$tag.out")
  [[ -n $ready ]] || { row "$tag: daemon READY" fail "$(since "$t0")s"; return 1; }
  grpc=$(sed -n 's/.* grpc=\([^ ]*\).*/\1/p' <<<"$ready")
  timed "$tag: first proof (single, verified)" 300 "$OUT/single-$tag.log" \
    "$bundle/bin/cuzk-bench" single --addr "$grpc" --dir "$w/sector" --out "$w/proof-$tag.bin"
  row "$tag: daemon start -> first proof" "-" "$(since "$t0")s" "$(grep -o 'SRS_LOAD.*' "$OUT/daemon-$tag.log" | cut -c1-90)"
  for _ in $(seq 900); do  # the release follows the image writes of a first load
    grep -q 'SRS_HOST_RELEASE' "$OUT/daemon-$tag.log" && break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.1
  done
  row "$tag: idle after the release" "-" "-" "$(rss "$dpid")"
  n_before=$(grep -c 'GPU_TIMING' "$OUT/daemon-$tag.log")
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 500 \
    >"$OUT/gpu-util-$tag.txt" 2>&1 &
  smi=$!
  timed "$tag: ${CUZK_SECTORS:-3} sectors, 2 at a time" 200 "$OUT/batch-$tag.log" \
    "$bundle/bin/cuzk-bench" batch --addr "$grpc" --dir "$w/sector" --count "${CUZK_SECTORS:-3}" --concurrency 2
  kill "$smi" 2>/dev/null
  row "$tag: batch" "-" "-" "$(grep -E '^completed' "$OUT/batch-$tag.log" | tail -1)"
  row "$tag: GPU utilization, memory used" "-" "-" \
    "$(awk -F', *' '$1+0==$1 {s+=$1; n++; if ($2>m) m=$2} END {if (n) printf "mean %.1f%% of %d samples; max %d MiB", s/n, n, m}' \
      "$OUT/gpu-util-$tag.txt")"
  grep 'GPU_TIMING' "$OUT/daemon-$tag.log" | tail -n +"$((n_before + 1))" >"$OUT/gpu-timing-$tag.txt"
  step_medians <"$OUT/gpu-timing-$tag.txt" |
    grep -Ev '^(status|fail_check|mark_busy|total_overhead|spawn_to_enter|total_pre_prove|bases|circuit)_ms' \
      >"$OUT/gpu-steps-$tag.txt"
  while read -r line; do row "  $tag step" "-" "-" "$line"; done <"$OUT/gpu-steps-$tag.txt"
  kill -TERM "$dpid"
  wait "$dpid"
  row "$tag: SIGTERM -> exit" "rc=$?" "-"
}

for workers in ${CUZK_WORKERS:-2 1}; do
  if (($(date +%s) - t_start > 430)); then
    row "w$workers" skip "-" "only $((590 - ($(date +%s) - t_start)))s left"
    continue
  fi
  run_daemon "$workers"
  # tmpfs cannot be reclaimed: the ~18 GB circuit image goes to the disk (a
  # symlink stays), so a load from the images (peak ~82 GB) and the key
  # image (37 GB) fit in the host's 125 GiB.
  if [[ $cache == /dev/shm/* ]]; then
    mkdir -p /tmp/cuzk-cache-disk
    for f in "$cache"/*.circuit-image; do
      [[ -f $f && ! -L $f ]] || continue
      mv "$f" /tmp/cuzk-cache-disk/ && ln -s "/tmp/cuzk-cache-disk/$(basename "$f")" "$f"
    done
  fi
done
(cd "$OUT" && tar czf /tmp/all-logs.tgz --exclude=all-logs.tgz . && mv /tmp/all-logs.tgz "$OUT/")
echo
printf '%-44s %-6s %9s  %s\n' step result time note
printf '%s\n' "${rows[@]}"
