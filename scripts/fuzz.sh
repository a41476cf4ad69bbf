#!/usr/bin/env bash
# Builds (if needed) and runs one libFuzzer target of tests/fuzz for SECONDS,
# then prints one summary line: executions, seconds, crashes.
#   scripts/fuzz.sh TARGET SECONDS        e.g. scripts/fuzz.sh fuzz_params 600
#   scripts/fuzz.sh all SECONDS           every target in turn, SECONDS each
#   scripts/fuzz.sh list                  the targets
# Environment:
#   CUZK_FUZZ_BUILD_DIR  build dir (default build-fuzz): clang, -DCUZK_FUZZ=ON (ASan+UBSan), no CUDA
#   CUZK_FUZZ_NICE       niceness of the build and the run (default 15: a shared machine stays usable)
#   CUZK_FUZZ_ARGS       extra libFuzzer flags (e.g. "-jobs=4 -workers=4")
#   CUZK_FUZZ_NO_BUILD=1 run the programs already built (the tree may be mid-edit)
# New inputs accumulate in BUILD/fuzz-work/TARGET (later runs start from them);
# crashes are written to BUILD/fuzz-artifacts/TARGET/ with the command that replays them.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(fuzz_vanilla_proof fuzz_params fuzz_vk fuzz_r1cs fuzz_zkey fuzz_wtns fuzz_config fuzz_submit_request)
build=${CUZK_FUZZ_BUILD_DIR:-build-fuzz}
nice_level=${CUZK_FUZZ_NICE:-15}

usage() {
  echo "usage: $0 TARGET|all SECONDS   (targets: ${targets[*]})" >&2
  exit 2
}
[[ ${1:-} == list ]] && { printf '%s\n' "${targets[@]}"; exit 0; }
(($# == 2)) || usage
[[ $2 =~ ^[0-9]+$ ]] || usage

configure() {
  if [[ ! -f $build/build.ninja ]]; then
    CC=clang CXX=clang++ nice -n "$nice_level" cmake -S . -B "$build" -G Ninja -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF \
      -DCUZK_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1" >/dev/null
  fi
}

run_one() {
  local t=$1 seconds=$2
  local work=$build/fuzz-work/$t artifacts=$build/fuzz-artifacts/$t log=$build/fuzz-logs/$t.log
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  if [[ ${CUZK_FUZZ_NO_BUILD:-0} != 1 || ! -x $build/bin/$t ]]; then
    nice -n "$nice_level" ninja -C "$build" "$t" >/dev/null
  fi
  local before
  # crash-, leak-, timeout- and oom- files (not slow-unit-: on a loaded machine a unit
  # can wait for the CPU longer than it runs; replay one to see its real time).
  findings() { find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }
  before=$(findings)
  echo "fuzz: $t for ${seconds}s (log: $log)"
  local rc=0
  # -rss_limit_mb: a reader that allocates from an unchecked count is an OOM finding.
  # ${CUZK_FUZZ_ARGS} unquoted on purpose: several flags.
  # shellcheck disable=SC2086
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 nice -n "$nice_level" "$build/bin/$t" "$work" "tests/fuzz/corpus/$t" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" ${CUZK_FUZZ_ARGS:-} >"$log" 2>&1 || rc=$?
  local execs secs crashes
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' | tail -n 1)
  crashes=$(($(findings) - before))
  echo "fuzz: $t executions=${execs:-?} seconds=${secs:-$seconds} crashes=$crashes exit=$rc corpus=$(find "$work" -type f | wc -l)"
  if ((rc != 0 || crashes != 0)); then
    grep -m 20 -E 'ERROR|SUMMARY|==[0-9]+==|runtime error|Test unit written|uncaught' "$log" || tail -n 30 "$log"
    echo "fuzz: replay with: $build/bin/$t <artifact from $artifacts>"
    return 1
  fi
}

configure
status=0
if [[ $1 == all ]]; then
  for t in "${targets[@]}"; do run_one "$t" "$2" || status=1; done
else
  [[ " ${targets[*]} " == *" $1 "* ]] || usage
  run_one "$1" "$2" || status=1
fi
exit $status
