#!/usr/bin/env bash
# One short device-tool call on a bare GPU host: sets loaded straight into
# the GPU's memory (srs.key_to_gpu), evicted and loaded again. Daemon A
# proves a 2 KiB and an 8 MiB sector (the usual loads; the images are
# written after them) and stops; daemon B, on the same images, proves 8 MiB
# (a load straight to the GPU), evicts it (EvictSRS: the GPU's copy goes),
# proves 8 MiB again (loaded straight again) and 2 KiB; every proof
# verified, SIGTERM -> exit 0. A summary table last; logs under $OUT.
#
#   OUT=... tools/gpu-host/direct_reload_run.sh TARBALL
set -uo pipefail
tarball=${1:?tarball}
: "${OUT:?set OUT}"
rows=()
ROW_WIDTH=48
# shellcheck source=run_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_lib.sh" || exit 2
mkdir -p /tmp/dr && tar -xzf "$tarball" -C /tmp/dr || exit 2
bundle=$(echo /tmp/dr/cuzk-*/)
w=/tmp/direct
small_sets "$bundle" "$w" || exit 1
witness_only_config "$w" /dev/shm/direct-cache
start() {  # start TAG -> $grpc, $dpid
  "$bundle/bin/cuzk-daemon" --config "$w/cuzk.toml" >"$w/daemon-$1.out" 2>"$OUT/daemon-$1.log" &
  dpid=$!
  for _ in $(seq 300); do
    grep -q '^READY ' "$w/daemon-$1.out" 2>/dev/null && break
    sleep 0.1
  done
  grpc=$(sed -n 's/.* grpc=\([^ ]*\).*/\1/p' "$w/daemon-$1.out")
  row "daemon $1 READY" "$([[ -n $grpc ]] && echo ok || echo fail)" "-"
}
prove() {  # prove TAG SIZE
  timed "$1: $2 proof (single, verified)" 120 "$OUT/single-$1-$2.log" \
    "$bundle/bin/cuzk-bench" single --addr "$grpc" --dir "$w/sector-$2" --out "$w/proof-$1-$2.bin"
}
stop() {
  kill -TERM "$dpid"
  wait "$dpid"
  row "daemon $1: SIGTERM -> exit" "rc=$?" "-"
}
start A
prove A 2KiB
prove A 8MiB
for _ in $(seq 600); do  # the images are written after each load (circuit, compact, key each)
  (($(grep -c 'SRS_CACHE,.*=written' "$OUT/daemon-A.log") >= 6)) && break
  sleep 0.1
done
row "A: images written" "-" "-" "$(grep -c 'SRS_CACHE,.*=written' "$OUT/daemon-A.log") written"
stop A
start B
prove B 8MiB
timed "B: evict snap-8m" 30 "$OUT/evict-B.log" "$bundle/bin/cuzk-bench" evict --addr "$grpc" --circuit-id snap-8m
prove B2 8MiB
prove B 2KiB
row "B: loads straight to the GPU (SRS_TO_DEVICES)" "-" "-" \
  "$(grep -c 'SRS_TO_DEVICES,.*key_ms' "$OUT/daemon-B.log") (want 3)"
row "B: GPU_FORGET lines (the evicted set's copy)" "-" "-" "$(grep -c 'GPU_FORGET' "$OUT/daemon-B.log")"
row "B: loads the usual way" "-" "-" "$(grep -c 'circuit=image,key=image' "$OUT/daemon-B.log")"
row "B: daemon alive" "$(kill -0 "$dpid" 2>/dev/null && echo ok || echo dead)" "-"
stop B
grep -hE 'SRS_LOAD|SRS_TO_DEVICES|GPU_KEY_IMAGE|GPU_PREPARE|GPU_FORGET|SRS_HOST_RELEASE|error|warn' "$OUT/daemon-B.log" | cut -c1-230
printf '%-48s %-6s %9s  %s\n' step result time note
printf '%s\n' "${rows[@]}"
