#!/usr/bin/env bash
# Builds the unit tests (scheduler, memory, prover, daemon parts, the quick CPU-only
# engine tests), the daemon tests and the pipeline/prover tests (and what they start:
# cuzk-daemon, cuzk-cli, cuzk-load) with a sanitizer in their own build dir,
# CPU only, and runs them. Every report of every process (the test programs and
# the daemons they start) goes to BUILD/sanitizer-logs/; the script prints each
# report's SUMMARY line and fails if there is one or a test failed.
#   scripts/sanitize.sh asan [CTEST_ARGS...]   ASan + UBSan (build-asan)
#   scripts/sanitize.sh tsan [CTEST_ARGS...]   TSan (build-tsan; absl locks seen through tests/sanitize/absl_tsan_shim.cpp,
#                                               suppressions for uninstrumented libraries in tests/sanitize/tsan.supp)
#   e.g. scripts/sanitize.sh tsan -R 'Pipeline|JobTracker'
# Environment:
#   CUZK_SANITIZE_BUILD_DIR  build dir (default build-asan / build-tsan)
#   CUZK_SANITIZE_CXX/_CC    compilers (default g++ / gcc)
#   CUZK_SANITIZE_TARGETS    what to build (default: the lists below)
#   CUZK_SANITIZE_ENGINE_TESTS  the engine tests among them (default: the list below; "" for none)
#   CUZK_SANITIZE_FIXTURE    a daemon fixture dir with params/ made by another build (default
#                            build/tests/daemon/fixture when present): its 2 KiB parameters are
#                            linked in, so the setup (slow under a sanitizer) is not run again
#   CUZK_SANITIZE_NICE       niceness of build and tests (default 15)
#   CUZK_SANITIZE_TIME_SCALE how much slower the build runs the tests (a positive integer;
#                            default tsan 6, asan 2): configured into the build dir as
#                            CUZK_TEST_TIMEOUT_SCALE (multiplies the daemon and pipeline
#                            tests' ctest TIMEOUT; set again on every run) and exported as
#                            CUZK_TEST_TIME_SCALE (multiplies those tests' own waits for a
#                            parameter load or a proof, tests/support/time_scale.hpp)
# Without CTEST_ARGS: every test labelled unit or daemon that was built, except the
# deploy and Python client tests. (The parsers run under ASan+UBSan through
# libFuzzer: scripts/fuzz.sh.) tests/sanitize/report_classes.py BUILD/sanitizer-logs
# groups the reports by their first frames of ours.
set -euo pipefail
# The whole script is one block, read before it runs: a run takes an hour, and
# bash reads a script as it goes, so an edit made meanwhile would be run half-way.
{
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-}
shift || true
case $mode in
  asan) flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
    default_scale=2 ;;
  tsan) flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=thread"
    default_scale=6 ;;
  *) echo "usage: $0 asan|tsan [CTEST_ARGS...]" >&2; exit 2 ;;
esac
build=${CUZK_SANITIZE_BUILD_DIR:-build-$mode}
nice_level=${CUZK_SANITIZE_NICE:-15}
cxx=${CUZK_SANITIZE_CXX:-g++}
cc=${CUZK_SANITIZE_CC:-gcc}
# A 2 KiB parameter load took 122-146 s under TSan at -O1 on a 2-vCPU machine
# (about 1 s in Release): the daemon and pipeline tests' waits and ctest
# TIMEOUTs are scaled so that they bound a hang, not the sanitizer's cost.
time_scale=${CUZK_SANITIZE_TIME_SCALE:-$default_scale}
[[ $time_scale =~ ^[1-9][0-9]*$ ]] || { echo "sanitize: CUZK_SANITIZE_TIME_SCALE must be a positive integer, not '$time_scale'" >&2; exit 2; }
# The unit tests: scheduler, memory, prover and daemon parts without a daemon
# process, and the engine tests that are CPU-only and quick under a sanitizer
# (each at most 24 s under ASan; not snap_circuit_test, 279 s, nor the GPU ones).
unit_targets="budget_test pinned_pool_test partition_queue_test dispatch_pacer_test dispatch_decision_test
  pipeline_test timeline_test simulator_test job_tracker_test daemon_config_test auth_token_test
  http_connection_pool_test request_scan_test service_options_test
  ${CUZK_SANITIZE_ENGINE_TESTS-cache_images_test compact_circuit_test encoding_test filecoin_vanilla_test
  params_io_test r1cs_test witness_only_test snarkjs_format_test ff_gmp_test msm_test ntt_test groth16_test
  pairing_test snap_native_test ec_basic_test ec_oracle_test snarkjs_interop_test}"
# The daemon tests (real daemons over gRPC, the journal, the fallback engine) and
# the pipeline/prover tests (ProofRunner on the scheduler, SrsImageCache). Not
# daemon_gpu_status_test: it needs a GPU and skips itself without one.
daemon_targets="request_validation_test daemon_integration_test daemon_waiters_test daemon_limits_test
  daemon_requests_test daemon_fallback_test daemon_pipeline_status_test daemon_transport_test
  daemon_request_id_test job_journal_test daemon_journal_test daemon_generic_test
  daemon_pipeline_test srs_image_cache_test"
targets=${CUZK_SANITIZE_TARGETS:-"$unit_targets $daemon_targets cuzk-daemon cuzk-cli cuzk-load"}
mkdir -p "$build"
build=$(cd "$build" && pwd)

link_flags="-fsanitize=${mode/asan/address,undefined}"
link_flags=${link_flags/tsan/thread}
if [[ $mode == tsan ]]; then
  # Debian's abseil is not built with TSan: its locks are made visible by wrapping
  # our calls to them (see the shim's header). The mangled-name infix of abseil's
  # inline namespace ("7debian3") comes from the library itself.
  lib=$(find /usr/lib /usr/local/lib -name 'libabsl_synchronization.so' 2>/dev/null | head -n 1)
  ns=$(nm -D "$lib" | grep -o '_ZN4absl[0-9a-z_]*5Mutex4LockEv' | head -n 1 | sed 's/^_ZN4absl//; s/5Mutex4LockEv$//')
  [[ -n $ns ]] || { echo "sanitize: cannot find absl::Mutex::Lock in $lib" >&2; exit 2; }
  # The link lines name the shim's object, but ninja does not know they depend
  # on it: when it changes, the programs are removed so that ninja links them again.
  "$cxx" -std=c++20 -O1 -g -fPIC -c -DCUZK_ABSL_NS="$ns" tests/sanitize/absl_tsan_shim.cpp -o "$build/absl_tsan_shim.o.new"
  if ! cmp -s "$build/absl_tsan_shim.o.new" "$build/absl_tsan_shim.o"; then
    mv "$build/absl_tsan_shim.o.new" "$build/absl_tsan_shim.o"
    for t in $targets; do rm -f "$build/bin/$t"; done
  else
    rm -f "$build/absl_tsan_shim.o.new"
  fi
  wraps=$(grep -oE 'CUZK_WRAP(_K)?\([0-9][0-9A-Za-z_]+\)' tests/sanitize/absl_tsan_shim.cpp | sort -u |
    sed -E "s/CUZK_WRAP_K\((.*)\)/-Wl,--wrap=_ZNK4absl${ns}\1/; s/CUZK_WRAP\((.*)\)/-Wl,--wrap=_ZN4absl${ns}\1/" | tr '\n' ' ')
  link_flags="$link_flags $build/absl_tsan_shim.o $wraps -labsl_synchronization -labsl_time"
fi

if [[ ! -f $build/build.ninja ]]; then
  CC=$cc CXX=$cxx nice -n "$nice_level" cmake -S . -B "$build" -G Ninja -DCUZK_CUDA=OFF -DCUZK_BUILD_BENCHMARKS=OFF \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DCUZK_TEST_TIMEOUT_SCALE="$time_scale" >/dev/null
else
  # The build dir exists: set the scale again (a no-op when unchanged).
  nice -n "$nice_level" cmake -DCUZK_TEST_TIMEOUT_SCALE="$time_scale" "$build" >/dev/null
fi
# shellcheck disable=SC2086  # the target list
nice -n "$nice_level" ninja -C "$build" $targets

fixture=${CUZK_SANITIZE_FIXTURE:-$root/build/tests/daemon/fixture}
if [[ -d $fixture/params ]] && ! ls "$build"/tests/daemon/fixture/params/*.params >/dev/null 2>&1; then
  mkdir -p "$build/tests/daemon/fixture/params"
  ln -sf "$fixture"/params/* "$build/tests/daemon/fixture/params/"
  echo "sanitize: 2 KiB parameters linked from $fixture/params"
fi

logs=$build/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
# TSan: the suppressions of tests/sanitize/tsan.supp (uninstrumented libraries
# only; each entry says why), and exit code 0 after a report, so that a test
# fails for its own reasons, not because a daemon it started had a report: the
# reports are counted from the log files below either way.
export TSAN_OPTIONS="log_path=$logs/tsan:second_deadlock_stack=1:history_size=4:exitcode=0:suppressions=$root/tests/sanitize/tsan.supp"
export CUZK_TEST_TIME_SCALE=$time_scale
echo "sanitize: test waits and daemon/pipeline ctest TIMEOUTs scaled by $time_scale"
cd "$build"
rc=0
if (($#)); then
  nice -n "$nice_level" ctest --output-on-failure --timeout 1800 "$@" || rc=$?
else
  nice -n "$nice_level" ctest --output-on-failure --timeout 1800 -L 'unit|daemon' \
    -E '_NOT_BUILT$|daemon_python_client|^deploy_' || rc=$?
fi
reports=$(find "$logs" -type f | wc -l)
echo "sanitize: $mode: ctest exit $rc; $reports sanitizer report file(s) in $logs"
for f in $(find "$logs" -type f | sort); do
  echo "  $f: $(grep -m 1 -E '^SUMMARY:' "$f" || head -n 1 "$f")"
done
((rc == 0 && reports == 0)) && exit 0
exit 1
}
