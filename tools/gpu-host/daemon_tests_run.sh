#!/usr/bin/env bash
# The daemon tests (each starts real cuzk-daemon processes) against a
# bundle's CUDA daemon on a bare GPU host, so they run where the daemon
# proves on the GPU (issue 18: "the daemon tests pass on a GPU host too").
#
# On the development machine, pack the test executables of a build (any
# build of this tree: the tests only talk to the daemon over gRPC and verify
# proofs with the engine on the CPU), with the shared libraries they load
# that neither glibc nor the bundle provides, so the tarball runs on a host
# that has none of them (naming the bundle keeps the tarball small: the
# device tool carries at most 64 MiB, and the bundle is ~42 MB of it):
#
#   tools/gpu-host/daemon_tests_run.sh --pack BUILD_DIR out/daemon-tests.tgz out/cuzk-h200.tar.gz
#
# On the GPU host (one device-tool call; carry the bundle and the tarball):
#
#   OUT=... tools/gpu-host/daemon_tests_run.sh BUNDLE.tar.gz TESTS.tar.gz
#
# The 2 KiB fixture is made there (gen-vanilla + GPU setup) and named to the
# tests by environment (tests/daemon/daemon_process.cpp). Every executable of
# kTests must be in the tarball: a missing one is a FAILED row, not a skip.
# Exit status: 0 only when every test executable exited 0.
set -uo pipefail

# The executables that start real daemons and need only the 2 KiB fixture
# (daemon_generic_test also needs the circom/snarkjs fixture, i.e. Node.js).
kTests=(daemon_config_test daemon_curio_fields_test daemon_fallback_test daemon_gpu_status_test
  daemon_integration_test daemon_journal_test daemon_limits_test daemon_pipeline_status_test
  daemon_request_id_test daemon_requests_test daemon_transport_test daemon_waiters_test)

if [[ ${1:-} == --pack ]]; then
  build=${2:?build directory}
  out=${3:?output tarball}
  bundle_tgz=${4:-}  # optional: libraries it carries are left out
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/lib"
  bundled=""
  if [[ -n $bundle_tgz ]]; then
    bundled=$(tar -tzf "$bundle_tgz" | sed -n 's|^[^/]*/lib/\([^/][^/]*\)$|\1|p') || exit 1
  fi
  for t in "${kTests[@]}"; do
    [[ -x $build/bin/$t ]] || { echo "missing: $build/bin/$t (ninja -C $build $t)" >&2; exit 1; }
    cp "$build/bin/$t" "$stage/" && strip "$stage/$t"
    ldd_out=$(ldd "$build/bin/$t") || exit 1
    if grep -q 'not found' <<<"$ldd_out"; then
      echo "$t: $(grep 'not found' <<<"$ldd_out")" >&2
      exit 1
    fi
    # Every library with a path except glibc's own and the loader.
    while read -r name _ path _; do
      [[ $path == /* ]] || continue
      case $name in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux* | libresolv.so.*) continue ;;
      esac
      grep -qxF "$name" <<<"$bundled" && continue
      [[ -e $stage/lib/$name ]] || cp -L "$path" "$stage/lib/$name"
    done <<<"$ldd_out"
  done
  mkdir -p "$(dirname "$out")"
  tar -czf "$out" -C "$stage" . || exit 1
  echo "packed ${#kTests[@]} test executables and $(ls "$stage/lib" | wc -l) libraries" \
    "${bundle_tgz:+(those $bundle_tgz lacks) }into $out ($(du -h "$out" | cut -f1))"
  exit 0
fi

bundle_tgz=${1:?bundle tarball}
tests_tgz=${2:?tests tarball}
: "${OUT:?set OUT}"
rows=()
status=0
row() { rows+=("$(printf '%-32s %-8s %8s  %s' "$1" "$2" "$3" "${4:-}")"); }
mkdir -p /tmp/b /tmp/t && tar -xzf "$bundle_tgz" -C /tmp/b && tar -xzf "$tests_tgz" -C /tmp/t || exit 2
bundle=$(echo /tmp/b/cuzk-*/)
fx=/tmp/fixture
t0=$(date +%s)
"$bundle/bin/cuzk-cli" snap gen-vanilla --sector-size 2KiB --seed 1 --out "$fx/sector-2k" >"$OUT/fixture.log" 2>&1 &&
  "$bundle/bin/cuzk-cli" snap setup --sector-size 2KiB --param-cache "$fx/params" --gpu >>"$OUT/fixture.log" 2>&1
rc=$?
row "fixture (2 KiB, GPU setup)" "rc=$rc" "$(($(date +%s) - t0))s"
[[ $rc == 0 ]] || status=1
export CUZK_DAEMON_BIN="$bundle/bin/cuzk-daemon" CUZK_DAEMON_FIXTURE_DIR="$fx"
# The bundle's libraries first (the daemon's launcher sets its own anyway),
# then what the tests brought (--pack).
export LD_LIBRARY_PATH="$bundle/lib:/tmp/t/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/host.txt" 2>&1
for name in "${kTests[@]}"; do
  t=/tmp/t/$name
  if [[ ! -x $t ]]; then
    row "$name" "missing" "-" "[  FAILED  ] not in $tests_tgz"
    status=1
    continue
  fi
  t0=$(date +%s)
  timeout --kill-after=10 240 "$t" --gtest_color=no >"$OUT/$name.log" 2>&1
  rc=$?
  [[ $rc == 0 ]] || status=1
  summary=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$name.log" | tr '\n' ' ')
  row "$name" "rc=$rc" "$(($(date +%s) - t0))s" "$summary"
done
(cd "$OUT" && tar czf /tmp/all-logs.tgz . && mv /tmp/all-logs.tgz "$OUT/")
printf '%-32s %-8s %8s  %s\n' test result time summary
printf '%s\n' "${rows[@]}"
exit $status
