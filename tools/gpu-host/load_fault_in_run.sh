#!/usr/bin/env bash
# One device-tool call on a bare GPU host: where a key image read's time goes,
# and what faulting its pages in on the reading threads (util::ResizeFaultedIn)
# saves, end to end (issue 17).
#   1. cuzk-bench host-fill: the ways of filling fresh host memory from a
#      file in tmpfs, 14 GB (a 32 GiB key's H section).
#   2. cold_start_run.sh with CUZK_WARM_SECTORS (default 1): a 32 GiB set made,
#      the daemon started twice (run 2 from the images: SRS_CACHE's per-section
#      sizing / reading times, daemon start -> first proof).
#   3. cuzk-bench load --steps key-read on run 2's images, with and without
#      the fault-in, alternating, twice each.
# Logs: $OUT/host-fill.log, $OUT/cold-start.tgz, $OUT/key-read.log; a summary last.
#
#   OUT=... tools/gpu-host/load_fault_in_run.sh TARBALL
set -uo pipefail
tarball=${1:?tarball}
: "${OUT:?set OUT}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p /tmp/hf && tar -xzf "$tarball" -C /tmp/hf || exit 2
bundle=$(echo /tmp/hf/cuzk-*/)
# CUZK_SKIP_HOST_FILL=1: step 1 left out (measured once; the call's time goes to the rest).
if [[ ${CUZK_SKIP_HOST_FILL:-0} != 1 ]]; then
  timeout 150 "$bundle/bin/cuzk-bench" host-fill --dir /dev/shm --threads 16 --repeats 1 >"$OUT/host-fill.log" 2>&1
  echo "host-fill rc=$?"
fi
mkdir -p "$OUT/cs"
OUT=$OUT/cs CUZK_WARM_SECTORS=${CUZK_WARM_SECTORS:-1} bash "$here/cold_start_run.sh" "$tarball" >"$OUT/cs/summary.txt" 2>&1
echo "cold start rc=$?"
cache=/dev/shm/cuzk-cache
[[ -d $cache ]] || cache=/tmp/cuzk-cache
for round in 1 2; do
  for flag in "" --no-fault-in; do
    echo "== round $round ${flag:-(fault-in)}" >>"$OUT/key-read.log"
    timeout 120 "$bundle/bin/cuzk-bench" load --param-cache /tmp/s-32GiB/params --sector-size 32GiB \
      --image-dir "$cache" --steps key-read --keep-images --threads 16 $flag >>"$OUT/key-read.log" 2>&1
  done
done
(cd "$OUT/cs" && tar czf "$OUT/cold-start.tgz" .)
tail -40 "$OUT/cs/summary.txt"
rm -rf "$OUT/cs"
echo
[[ -f $OUT/host-fill.log ]] && cat "$OUT/host-fill.log"
echo
grep -E '^==|key-read|key-sections' "$OUT/key-read.log"
