#!/usr/bin/env bash
# One device-tool call on a bare GPU host: the daemon tests (each starts real
# cuzk-daemon processes) against the bundle's CUDA daemon, so they run where
# the daemon proves on the GPU (issue 18: "the daemon tests pass on a GPU
# host too"). The test executables come from a CUDA build's bin/ in a
# tarball; the 2 KiB fixture is made here (gen-vanilla + GPU setup) and
# named to the tests by environment (tests/daemon/daemon_process.cpp).
#
#   OUT=... tools/gpu-host/daemon_tests_run.sh BUNDLE.tar.gz TESTS.tar.gz
set -uo pipefail
bundle_tgz=${1:?bundle tarball}
tests_tgz=${2:?tests tarball}
: "${OUT:?set OUT}"
rows=()
row() { rows+=("$(printf '%-32s %-8s %8s  %s' "$1" "$2" "$3" "${4:-}")"); }
mkdir -p /tmp/b /tmp/t && tar -xzf "$bundle_tgz" -C /tmp/b && tar -xzf "$tests_tgz" -C /tmp/t || exit 2
bundle=$(echo /tmp/b/cuzk-*/)
fx=/tmp/fixture
t0=$(date +%s)
"$bundle/bin/cuzk-cli" snap gen-vanilla --sector-size 2KiB --seed 1 --out "$fx/sector-2k" >"$OUT/fixture.log" 2>&1 &&
  "$bundle/bin/cuzk-cli" snap setup --sector-size 2KiB --param-cache "$fx/params" --gpu >>"$OUT/fixture.log" 2>&1
row "fixture (2 KiB, GPU setup)" "rc=$?" "$(($(date +%s) - t0))s"
export CUZK_DAEMON_BIN="$bundle/bin/cuzk-daemon" CUZK_DAEMON_FIXTURE_DIR="$fx"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/host.txt" 2>&1
for t in /tmp/t/*_test; do
  name=$(basename "$t")
  t0=$(date +%s)
  timeout --kill-after=10 240 "$t" --gtest_color=no >"$OUT/$name.log" 2>&1
  rc=$?
  summary=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$name.log" | tr '\n' ' ')
  row "$name" "rc=$rc" "$(($(date +%s) - t0))s" "$summary"
done
(cd "$OUT" && tar czf /tmp/all-logs.tgz . && mv /tmp/all-logs.tgz "$OUT/")
printf '%-32s %-8s %8s  %s\n' test result time summary
printf '%s\n' "${rows[@]}"
