#!/usr/bin/env bash
# One device-tool call on a bare GPU host: issue 17's cold start. Makes a
# 32 GiB (default) SnapDeals parameter set with the GPU setup, then starts the
# daemon twice on it with the image cache in CACHE_DIR:
#   run 1  no images yet: the set is compiled and decoded (the old path); its
#          images are written in the background after the load;
#   run 2  a fresh daemon process on the same files: the set loads from its
#          images.
# Each run times daemon start -> READY -> the first proof returned (cuzk-bench
# single, which checks the proof), and records the daemon's SRS_LOAD /
# SRS_CACHE / GPU_TIMING lines and its resident memory when idle after the
# proof and after SRS_HOST_RELEASE (the host copy given back once the GPU
# holds the set and the images are written: circuit, compact circuit, key). Run 2 then proves
# CUZK_WARM_SECTORS (default 3) more sectors, 2 at a time (cuzk-bench batch),
# with the GPU's utilization sampled, and prints the median of every
# GPU_TIMING step of those partitions. A summary table is printed last;
# every log is under $OUT.
#
#   OUT=... tools/gpu-host/cold_start_run.sh TARBALL
#
# Environment: CUZK_SIZE (default 32GiB), CUZK_CACHE_DIR (default
# /dev/shm/cuzk-cache: the host's disk holds the .params but not also its
# ~37 GB key image; tmpfs behaves as files in the page cache), CUZK_BUDGET
# (daemon memory.total_budget, default 80GiB), CUZK_SYNTH (default 3),
# CUZK_SETUP_S (default 320), CUZK_PARAMS_DIR (default /tmp/s-SIZE/params;
# /dev/shm/... keeps the 34.5 GB .params off the 64 GB disk so the images fit
# there), CUZK_DROP_RUN=1 (run 3: the page cache dropped first, the disk's
# read rate measured with dd on the circuit image, the daemon's bytes read
# from disk from /proc/PID/io; the images on the disk: CUZK_CACHE_DIR and
# CUZK_PARAMS_DIR default to /tmp/cuzk-cache and /dev/shm/params then),
# CUZK_PRELOAD (default 1: runs 2 and 3 name the set in srs.preload, which
# loads it on a thread of its own from the daemon's start, beside the
# client's connection and request), CUZK_PAIRS=N (default 0: after run 2, N
# pairs of daemons on the same warm page cache, one without srs.preload (the
# job loads the set) then one with it: the comparison, alternated),
# CUZK_BASE_DAEMON=PATH (with CUZK_PAIRS: each pair is instead this other
# build's cuzk-daemon executable (a libexec/cuzk-daemon of another commit,
# run with the bundle's lib/) then the bundle's, both with srs.preload: the
# same machine and files for a before/after comparison), CUZK_EARLY_PROVING
# (default true, the daemon's default: the daemons' [gpus] early_proving), CUZK_COMPRESSED_H
# (default always, the daemon's: their [gpus] compressed_h), CUZK_DROP_VARIANTS (with
# CUZK_DROP_RUN=1: a list of EARLY:COMPRESSED pairs such as
# "false:never true:never true:auto" runs run 3 once per pair, each after its
# own page-cache drop: the cold start's A/B), CUZK_RUN2=0 (skips run 2: device
# time; the drop runs need only run 1's images). The key image holds the
# forms of H that run 1's compressed_h reads (never: plain, always:
# compressed, auto: both: ~44 GB at 32 GiB, which with the ~18 GB circuit
# image does not fit the host's 53 GB of free disk).
set -uo pipefail
tarball=${1:?tarball}
: "${OUT:?set OUT}"
size=${CUZK_SIZE:-32GiB}
if [[ ${CUZK_DROP_RUN:-0} == 1 ]]; then
  # A drop must empty the images' pages: they go to the disk, and the
  # .params (read only at run 1) to tmpfs, so that the images fit there
  # (the H200 host: 53 GB of free disk; 32 GiB images 51.2 GB with H
  # compressed).
  : "${CUZK_CACHE_DIR:=/tmp/cuzk-cache}"
  : "${CUZK_PARAMS_DIR:=/dev/shm/params}"
fi
# tmpfs when it has room for both images (~57 GB at 32 GiB), else the disk.
shm_free_gb=$(df -BG --output=avail /dev/shm 2>/dev/null | tail -1 | tr -dc 0-9)
if [[ -z ${CUZK_CACHE_DIR:-} ]] && ((${shm_free_gb:-0} < 60)); then CUZK_CACHE_DIR=/tmp/cuzk-cache; fi
cache=${CUZK_CACHE_DIR:-/dev/shm/cuzk-cache}
t_start=$(date +%s)
rows=()
echo "image cache: $cache (/dev/shm free: ${shm_free_gb:-?} GB)"
ROW_WIDTH=40
# shellcheck source=run_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_lib.sh" || exit 2

mkdir -p /tmp/b && tar -xzf "$tarball" -C /tmp/b || exit 2
bundle=$(echo /tmp/b/cuzk-*/)
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv; nproc; free -g; df -h /tmp /dev/shm; } \
  >"$OUT/host.txt" 2>&1
w=/tmp/s-$size
params=${CUZK_PARAMS_DIR:-$w/params}
mkdir -p "$w" "$params"
timed "$size gen-vanilla" 200 "$OUT/gen.log" \
  "$bundle/bin/cuzk-cli" snap gen-vanilla --sector-size "$size" --seed 1 --out "$w/sector" || exit 1
timed "$size setup --gpu" "${CUZK_SETUP_S:-320}" "$OUT/setup.log" \
  "$bundle/bin/cuzk-cli" snap setup --sector-size "$size" --param-cache "$params" --gpu || exit 1
ls -l "$params" >>"$OUT/setup.log"
rm -rf "$cache"

# The set's circuit id (srs.preload).
case $size in
  2KiB) circuit_id=snap-2k ;; 8MiB) circuit_id=snap-8m ;; 512MiB) circuit_id=snap-512m ;;
  32GiB) circuit_id=snap-32g ;; 64GiB) circuit_id=snap-64g ;; *) circuit_id=unknown ;;
esac

run_daemon() {  # run_daemon TAG [PRELOAD=0|1] [DAEMON]: start, first proof, idle RSS, stop
  local tag=$1 preload=${2:-0} daemon=${3:-$bundle/bin/cuzk-daemon} t0 dpid ready grpc preload_line=""
  ((preload)) && preload_line="preload = [\"$circuit_id\"]"
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
early_proving = ${EARLY:-${CUZK_EARLY_PROVING:-true}}
compressed_h = "${COMPRESSED:-${CUZK_COMPRESSED_H:-always}}"
[srs]
param_cache = "$params"
cache_dir = "$cache"
$preload_line
[logging]
level = "info"
EOF
  : >"$w/daemon-$tag.out"
  t0=$(date +%s.%N)
  LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    "$daemon" --config "$w/cuzk-$tag.toml" >"$w/daemon-$tag.out" 2>"$OUT/daemon-$tag.log" &
  dpid=$!
  for _ in $(seq 600); do
    grep -q '^READY ' "$w/daemon-$tag.out" 2>/dev/null && break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.1
  done
  ready=$(grep '^READY ' "$w/daemon-$tag.out")
  row "$tag: daemon READY" "$([[ -n $ready ]] && echo ok || echo fail)" "$(since "$t0")s" \
    "$( ((preload)) && echo "srs.preload $circuit_id")"
  [[ -n $ready ]] || return 1
  grpc=$(sed -n 's/.* grpc=\([^ ]*\).*/\1/p' <<<"$ready")
  timed "$tag: first proof (single, verified)" 400 "$OUT/single-$tag.log" \
    "$bundle/bin/cuzk-bench" single --addr "$grpc" --dir "$w/sector" --out "$w/proof-$tag.bin"
  row "$tag: daemon start -> first proof" "-" "$(since "$t0")s"
  row "$tag: bytes the daemon read from disk" "-" "-" "$(grep -E '^read_bytes' "/proc/$dpid/io" 2>/dev/null)"
  rss "$dpid" >"$OUT/rss-$tag.txt"
  row "$tag: idle memory after the proof" "-" "-" "$(cat "$OUT/rss-$tag.txt")"
  if [[ $tag == run1 ]]; then  # the images are written after the load: wait for all three
    local t1
    t1=$(date +%s.%N)
    for _ in $(seq 1800); do
      # circuit, compact circuit (witness-only on a GPU) and key; the host
      # copy is released only once the writer is done with all of them.
      (($(grep -c 'SRS_CACHE,.*=written' "$OUT/daemon-$tag.log") >= 3)) && break
      grep -q 'SRS_HOST_RELEASE' "$OUT/daemon-$tag.log" && break
      grep -q 'SRS_CACHE off' "$OUT/daemon-$tag.log" && break
      kill -0 "$dpid" 2>/dev/null || break
      sleep 0.1
    done
    row "run1: images written (after the proof)" "-" "$(since "$t1")s" "$(du -sh "$cache" 2>/dev/null | cut -f1)"
  fi
  # The host copy goes once the GPU holds the set and the images are written.
  local t2
  t2=$(date +%s.%N)
  for _ in $(seq 600); do
    grep -q 'SRS_HOST_RELEASE' "$OUT/daemon-$tag.log" && break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.1
  done
  row "$tag: SRS_HOST_RELEASE seen" "$(grep -q SRS_HOST_RELEASE "$OUT/daemon-$tag.log" && echo ok || echo none)" \
    "$(since "$t2")s" "$(grep -o 'released_bytes=[0-9]*,circuit=[a-z]*,held_bytes=[0-9]*,ms=[0-9]*' "$OUT/daemon-$tag.log" | head -1)"
  sleep 1
  rss "$dpid" >"$OUT/rss-$tag-released.txt"
  row "$tag: idle memory after the release" "-" "-" "$(cat "$OUT/rss-$tag-released.txt")"
  if [[ $tag == run2 ]] && ((${CUZK_WARM_SECTORS:-3} > 0)) && (($(date +%s) - t_start < 470)); then
    local n_before smi
    n_before=$(grep -c 'GPU_TIMING' "$OUT/daemon-$tag.log")
    nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 >"$OUT/gpu-util-$tag.txt" 2>&1 &
    smi=$!
    timed "$tag: ${CUZK_WARM_SECTORS:-3} more sectors, 2 at a time" 150 "$OUT/batch-$tag.log" \
      "$bundle/bin/cuzk-bench" batch --addr "$grpc" --dir "$w/sector" --count "${CUZK_WARM_SECTORS:-3}" --concurrency 2
    kill "$smi" 2>/dev/null
    row "$tag: batch result" "-" "-" "$(grep -E 'completed' "$OUT/batch-$tag.log" | tail -1)"
    row "$tag: GPU utilization during the batch" "-" "-" \
      "$(awk '$1+0==$1 {s+=$1; n++} END {if (n) printf "mean %.1f%% of %d samples", s/n, n}' "$OUT/gpu-util-$tag.txt")"
    # The median of each GPU_TIMING field over the batch's partitions.
    grep 'GPU_TIMING' "$OUT/daemon-$tag.log" | tail -n +"$((n_before + 1))" >"$OUT/gpu-timing-batch.txt"
    step_medians <"$OUT/gpu-timing-batch.txt" >"$OUT/gpu-steps-median.txt"
    while read -r line; do row "  step" "-" "-" "$line"; done <"$OUT/gpu-steps-median.txt"
    rss "$dpid" >"$OUT/rss-$tag-after-batch.txt"
    row "$tag: memory after the batch" "-" "-" "$(cat "$OUT/rss-$tag-after-batch.txt")"
  fi
  kill -TERM "$dpid"
  wait "$dpid"
  row "$tag: SIGTERM -> exit" "rc=$?" "-"
  grep -E 'SRS_LOAD|SRS_CACHE|SRS_PRELOAD|SRS_TO_DEVICES|GPU_KEY_IMAGE|GPU_PREPARE|SUBMIT_TIMING' "$OUT/daemon-$tag.log" | sed "s/^/$tag: /" >>"$OUT/summary-lines.txt"
  grep -E 'GPU_TIMING' "$OUT/daemon-$tag.log" | head -4 | sed "s/^/$tag: /" >>"$OUT/summary-lines.txt"
}

run_daemon run1
# tmpfs cannot be reclaimed: the ~18 GB circuit image goes to the disk (a
# symlink stays), so the daemon's ~55 GB, the key image and the partitions
# in flight fit in the host's 125 GiB for run 2.
if [[ $cache == /dev/shm/* ]]; then
  mkdir -p /tmp/cuzk-cache-disk
  for f in "$cache"/*.circuit-image; do
    [[ -f $f ]] || continue
    t0=$(date +%s.%N)
    mv "$f" /tmp/cuzk-cache-disk/ && ln -s "/tmp/cuzk-cache-disk/$(basename "$f")" "$f"
    row "circuit image -> disk (symlink)" "$?" "$(since "$t0")s"
  done
fi
free -g >>"$OUT/host.txt"
left=$((590 - ($(date +%s) - t_start)))
if [[ ${CUZK_RUN2:-1} == 0 ]]; then
  row "run2" skip "-" "CUZK_RUN2=0"
elif ((left > 90)); then
  run_daemon run2 "${CUZK_PRELOAD:-1}"
else
  row "run2" skip "-" "only ${left}s left"
fi
for ((pair = 1; pair <= ${CUZK_PAIRS:-0}; pair++)); do
  for side in 0 1; do
    left=$((590 - ($(date +%s) - t_start)))
    if [[ -n ${CUZK_BASE_DAEMON:-} ]]; then
      tag=pair$pair-$( ((side)) && echo this || echo base)
      args=(1 "$( ((side)) && echo "$bundle/bin/cuzk-daemon" || echo "$CUZK_BASE_DAEMON")")
    else
      tag=pair$pair-$( ((side)) && echo preload || echo nopreload)
      args=("$side")
    fi
    if ((left > 60)); then
      CUZK_WARM_SECTORS=0 run_daemon "$tag" "${args[@]}"
    else
      row "$tag" skip "-" "only ${left}s left"
    fi
  done
done
if [[ ${CUZK_DROP_RUN:-0} == 1 ]]; then
  for variant in ${CUZK_DROP_VARIANTS:-${CUZK_EARLY_PROVING:-false}:${CUZK_COMPRESSED_H:-never}}; do
    early=${variant%%:*} compressed=${variant#*:}
    tag=run3$([[ -n ${CUZK_DROP_VARIANTS:-} ]] && echo "-early-$early-h-$compressed")
    left=$((590 - ($(date +%s) - t_start)))
    if ((left > 80)); then
      sync
      echo 3 >/proc/sys/vm/drop_caches
      circuit_image=$(readlink -f "$cache"/*.circuit-image | head -1)
      row "dd 6 GiB of the circuit image (buffered)" "-" "-" \
        "$(dd if="$circuit_image" of=/dev/null bs=16M count=384 2>&1 | tail -1)"
      sync
      echo 3 >/proc/sys/vm/drop_caches
      row "page cache dropped" "-" "-" "$(free -g | awk '/Mem:/ {print "buff/cache " $6 " GB"}')"
      EARLY=$early COMPRESSED=$compressed CUZK_WARM_SECTORS=0 run_daemon "$tag" "${CUZK_PRELOAD:-1}"
      grep -h 'GPU_KEY_IMAGE\|GPU_KEY_LANDED' "$OUT/daemon-$tag.log" | cut -c1-200 | sed 's/^/    /'
    else
      row "$tag (page cache dropped)" skip "-" "only ${left}s left"
    fi
  done
fi
ls -l "$cache" >>"$OUT/host.txt" 2>&1
(cd "$OUT" && tar czf /tmp/all-logs.tgz --exclude=all-logs.tgz . && mv /tmp/all-logs.tgz "$OUT/")
echo
cut -c1-300 "$OUT/summary-lines.txt" 2>/dev/null
echo
printf '%-40s %-6s %9s  %s\n' step result time note
printf '%s\n' "${rows[@]}"
