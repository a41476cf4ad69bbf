#!/usr/bin/env bash
# Builds the snarkjs side of an interop test for one circuit of circuits/:
# circom 2 (--prime bls12381) -> circuit.r1cs, .wasm and .sym, the witness of
# INPUT_JSON (snarkjs wtns calculate), a Groth16 zkey from `snarkjs groth16
# setup` on the shared 2^12 BLS12-381 ptau (optionally one `zkey contribute`),
# the verification key, and one snarkjs proof with its public signals.
#
#   snarkjs_artifacts.sh CIRCUIT INPUT_JSON [--contribute] [--export-json]
#
# --export-json also writes snarkjs's own JSON dumps (r1cs.json, wtns.json,
# zkey.json) for the format tests to compare against.
# Prints the directory holding the files on its last line. Results are cached
# by a hash of this script, every circuit source, the input, the flags and the
# snarkjs version under $CUZK_SNARKJS_CACHE (default $TMPDIR/cuzk-snarkjs-cache):
# snarkjs on BLS12-381 needs seconds per command. The ptau is read, never
# written (CUZK_PTAU overrides its path).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 CIRCUIT INPUT_JSON [--contribute] [--export-json]" >&2; exit 2; }
circuit="$1"
input="$2"
shift 2
contribute=0
export_json=0
for flag in "$@"; do
  case "$flag" in
    --contribute) contribute=1 ;;
    --export-json) export_json=1 ;;
    *) echo "unknown flag: $flag" >&2; exit 2 ;;
  esac
done

ptau="${CUZK_PTAU:-$repo/../shared/testdata/pot12_bls12381.ptau}"
snarkjs="$here/node_modules/.bin/snarkjs"
circom2="$here/node_modules/.bin/circom2"
src="$here/circuits/$circuit.circom"
# The ptau lives in the shared folder next to the repository (../shared), not in it: a clone placed
# elsewhere needs CUZK_PTAU.
[ -e "$ptau" ] || { echo "missing $ptau (the shared test data next to the repository; set CUZK_PTAU to its path)" >&2; exit 2; }
for f in "$snarkjs" "$circom2" "$src"; do
  [ -e "$f" ] || { echo "missing $f (run scripts/setup.sh for the npm packages)" >&2; exit 2; }
done

cache="${CUZK_SNARKJS_CACHE:-${TMPDIR:-/tmp}/cuzk-snarkjs-cache}"
mkdir -p "$cache"
key="$({ cat "${BASH_SOURCE[0]}" "$here"/circuits/*.circom "$here/node_modules/snarkjs/package.json"
         printf '%s\n%s%s\n' "$input" "$contribute" "$export_json"; } | sha256sum | cut -c1-16)"
dir="$cache/$circuit-$key"
if [ -f "$dir/done" ]; then
  echo "$dir"
  exit 0
fi

tmp="$(mktemp -d "$cache/.tmp-$circuit-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
log="$tmp/log.txt"
run() {
  if ! "$@" >>"$log" 2>&1; then
    echo "failed: $*" >&2
    cat "$log" >&2
    exit 1
  fi
}

# circom2 (circom as WASI) resolves includes from its working directory.
(cd "$here/circuits" && run "$circom2" "$circuit.circom" --prime bls12381 --r1cs --wasm --sym -o "$tmp")
mv "$circuit.r1cs" circuit.r1cs
mv "$circuit.sym" circuit.sym
mv "${circuit}_js/$circuit.wasm" circuit.wasm
printf '%s\n' "$input" > input.json
run "$snarkjs" wtns calculate circuit.wasm input.json witness.wtns
if [ "$contribute" = 1 ]; then
  run "$snarkjs" groth16 setup circuit.r1cs "$ptau" circuit_0000.zkey
  run "$snarkjs" zkey contribute circuit_0000.zkey circuit.zkey --name="cuzk test" -e="cuzk test entropy $key"
  rm circuit_0000.zkey
else
  run "$snarkjs" groth16 setup circuit.r1cs "$ptau" circuit.zkey
fi
run "$snarkjs" zkey export verificationkey circuit.zkey verification_key.json
run "$snarkjs" groth16 prove circuit.zkey witness.wtns proof.json public.json
if [ "$export_json" = 1 ]; then
  run "$snarkjs" r1cs export json circuit.r1cs r1cs.json
  run "$snarkjs" wtns export json witness.wtns wtns.json
  run "$snarkjs" zkey export json circuit.zkey zkey.json
fi
rm -rf "${circuit}_js"
touch done
# Another run may have finished the same key meanwhile: keep either copy.
if mv -T "$tmp" "$dir" 2>/dev/null; then
  trap - EXIT
fi
echo "$dir"
