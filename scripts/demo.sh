#!/usr/bin/env bash
# The README's main job: set up a fresh machine, build, and prove a SnapDeals
# (EmptySectorUpdate) test sector end to end on the CPU engine:
#   generate a test sector and its vanilla proofs -> local Groth16 setup
#   (cached) -> prove every partition -> verify -> print the timings.
# (When the daemon lands this becomes: start cuzk-daemon, prove through gRPC.)
#   CUZK_DEMO_SECTOR  sector size (default 2KiB; 1KiB is the quickest)
#   CUZK_DEMO_DIR     work directory (default ./demo-out; parameters cached there)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${CUZK_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "${CUZK_BUILD_JOBS:-2}" --target cuzk-cli
cli="$build/bin/cuzk-cli"

sector=${CUZK_DEMO_SECTOR:-2KiB}
work=${CUZK_DEMO_DIR:-demo-out}
mkdir -p "$work/params"
sector_dir="$work/sector-$sector"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

echo "== circuit"
"$cli" snap circuit-info --sector-size "$sector" --json

echo "== test sector and vanilla proofs ($sector)"
t=$(now)
"$cli" snap gen-vanilla --sector-size "$sector" --seed 1 --out "$sector_dir"
t_gen=$(elapsed "$t")

echo "== local Groth16 parameters (cached in $work/params)"
t=$(now)
if ls "$work"/params/*.params >/dev/null 2>&1 && "$cli" snap setup --help >/dev/null; then
  # setup refuses to overwrite: an existing file for this shape is reused
  "$cli" snap setup --sector-size "$sector" --param-cache "$work/params" 2>/dev/null || echo "(reusing cached parameters)"
else
  "$cli" snap setup --sector-size "$sector" --param-cache "$work/params"
fi
t_setup=$(elapsed "$t")

echo "== prove"
t=$(now)
"$cli" snap prove --dir "$sector_dir" --param-cache "$work/params" --out "$work/proof-$sector.bin"
t_prove=$(elapsed "$t")

echo "== verify"
t=$(now)
"$cli" snap verify --dir "$sector_dir" --param-cache "$work/params" --proof "$work/proof-$sector.bin"
t_verify=$(elapsed "$t")

printf '\n%-28s %10s\n' "step ($sector)" "seconds"
printf '%-28s %10s\n' "gen-vanilla" "$t_gen" "setup (or cache)" "$t_setup" "prove" "$t_prove" "verify" "$t_verify"
echo "proof: $work/proof-$sector.bin ($(stat -c %s "$work/proof-$sector.bin") bytes)"
