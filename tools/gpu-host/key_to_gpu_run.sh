#!/usr/bin/env bash
# One device-tool call on a bare GPU host: a set's key image straight into
# the GPU's memory (issue 17, CudaBackend::LoadKeyImage).
#   1. GPU tests from TESTS.tgz (gt/key_image_gpu_test: proofs from an image's
#      shell equal the CPU's; gt/witness_only_gpu_test without the slow cases).
#   2. cold_start_run.sh with CUZK_WARM_SECTORS (default 1): run 2 loads the
#      32 GiB set straight to the GPU (SRS_TO_DEVICES, GPU_KEY_IMAGE lines).
# Logs under $OUT; a summary last.
#
#   OUT=... tools/gpu-host/key_to_gpu_run.sh BUNDLE.tar.gz TESTS.tgz
set -uo pipefail
tarball=${1:?bundle}
tests=${2:?tests tarball}
: "${OUT:?set OUT}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p /tmp/gt && tar -xzf "$tests" -C /tmp/gt || exit 2
timeout 240 /tmp/gt/gt/key_image_gpu_test >"$OUT/key_image_gpu_test.log" 2>&1
echo "key_image_gpu_test rc=$?"
timeout 120 /tmp/gt/gt/witness_only_gpu_test --gtest_filter='-*SnapDealsPartition*' >"$OUT/witness_only_gpu_test.log" 2>&1
echo "witness_only_gpu_test rc=$?"
mkdir -p "$OUT/cs"
OUT=$OUT/cs CUZK_WARM_SECTORS=${CUZK_WARM_SECTORS:-1} bash "$here/cold_start_run.sh" "$tarball" >"$OUT/cs/summary.txt" 2>&1
echo "cold start rc=$?"
(cd "$OUT/cs" && tar czf "$OUT/cold-start.tgz" .)
grep -hE 'SRS_LOAD|SRS_TO_DEVICES|GPU_KEY_IMAGE|GPU_PREPARE|SRS_CACHE|SRS_HOST_RELEASE' "$OUT"/cs/daemon-run2.log | cut -c1-240
tail -32 "$OUT/cs/summary.txt"
rm -rf "$OUT/cs"
grep -hE '^\[  (PASSED|FAILED) |^\[       OK|FAILED|key image to the device' "$OUT"/*_gpu_test.log
