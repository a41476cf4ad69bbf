#!/usr/bin/env bash
# Our CPU Groth16 prover beside `snarkjs groth16 prove` on the largest circom
# circuits the shared 2^12 BLS12-381 ptau allows:
#   mimc_500:  2000 constraints, domain 2^11
#   mimc_1000: 4000 constraints, domain 2^12 (the ptau's limit: rows <= 4096)
# Builds the inputs with snarkjs_artifacts.sh (cached; ~20 s and ~40 s the
# first time) and runs `cuzk-bench snarkjs-compare` on each.
#
#   tests/oracle/snarkjs_bench.sh BUILD_DIR [extra snarkjs-compare flags, e.g. --json]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: $0 BUILD_DIR [snarkjs-compare flags]}"
shift
bench="$build/bin/cuzk-bench"
[ -x "$bench" ] || { echo "missing $bench (ninja -C $build cuzk-bench)" >&2; exit 2; }
for circuit in mimc_500 mimc_1000; do
  dir="$("$here/snarkjs_artifacts.sh" "$circuit" '{"x": "12345", "k": "678"}')"
  dir="${dir##*$'\n'}"
  "$bench" snarkjs-compare --r1cs "$dir/circuit.r1cs" --zkey "$dir/circuit.zkey" --wtns "$dir/witness.wtns" \
    --oracle-dir "$here" "$@"
done
