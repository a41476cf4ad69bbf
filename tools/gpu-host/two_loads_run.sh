#!/usr/bin/env bash
# One short device-tool call on a bare GPU host: a witness-only CUDA daemon
# loads two parameter sets one after the other (2 KiB, then 8 MiB), so the
# second load's PrepareDevices joins the first load's finished GPU preparer;
# every proof verified, the daemon still serving, SIGTERM exits 0. Then the
# 8 MiB images' reads (cuzk-bench load): the key with and without its pages
# faulted in on the reading threads, and the circuit image.
#
#   OUT=... tools/gpu-host/two_loads_run.sh TARBALL
set -uo pipefail
tarball=${1:?tarball}
: "${OUT:?set OUT}"
rows=()
ROW_WIDTH=44
# shellcheck source=run_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_lib.sh" || exit 2
mkdir -p /tmp/b2 && tar -xzf "$tarball" -C /tmp/b2 || exit 2
bundle=$(echo /tmp/b2/cuzk-*/)
w=/tmp/two
small_sets "$bundle" "$w" || exit 1
witness_only_config "$w" /dev/shm/two-cache
"$bundle/bin/cuzk-daemon" --config "$w/cuzk.toml" >"$w/daemon.out" 2>"$OUT/daemon.log" &
dpid=$!
for _ in $(seq 300); do
  grep -q '^READY ' "$w/daemon.out" 2>/dev/null && break
  sleep 0.1
done
grpc=$(sed -n 's/.* grpc=\([^ ]*\).*/\1/p' "$w/daemon.out")
row "daemon READY" "$([[ -n $grpc ]] && echo ok || echo fail)" "-"
for size in 2KiB 8MiB 2KiB; do
  timed "$size proof (single, verified)" 90 "$OUT/single-$size.log" \
    "$bundle/bin/cuzk-bench" single --addr "$grpc" --dir "$w/sector-$size" --out "$w/proof-$size.bin"
done
# The images are written after each load: wait for both keys' before stopping.
for _ in $(seq 400); do
  (($(grep -c 'SRS_CACHE,.*key=written' "$OUT/daemon.log") >= 2)) && break
  sleep 0.1
done
row "GPU_PREPARE lines (one per load)" "-" "-" "$(grep -c GPU_PREPARE, "$OUT/daemon.log")"
row "daemon alive after both loads" "$(kill -0 $dpid 2>/dev/null && echo ok || echo dead)" "-"
kill -TERM $dpid
wait $dpid
row "SIGTERM -> exit" "rc=$?" "-"
for round in 1 2; do
  for flag in "" --no-fault-in; do
    echo "== round $round ${flag:-(fault-in)}" >>"$OUT/load-8MiB.log"
    timeout 60 "$bundle/bin/cuzk-bench" load --param-cache "$w/params" --sector-size 8MiB \
      --image-dir /dev/shm/two-cache --steps key-read,circuit-read --keep-images --threads 16 $flag \
      >>"$OUT/load-8MiB.log" 2>&1
  done
done
grep -hE 'GPU_PREPARE|SRS_LOAD|SRS_CACHE' "$OUT/daemon.log" | cut -c1-260
grep -E '^==|read|sections' "$OUT/load-8MiB.log"
printf '%-44s %-6s %9s  %s\n' step result time note
printf '%s\n' "${rows[@]}"
