#!/usr/bin/env bash
# CTest fixture (FIXTURES_SETUP daemon_fixture): a 2 KiB SnapDeals test
# sector and local Groth16 parameters under Filecoin's names, made once and
# shared by every daemon test of the run (kept in the build tree, so later
# runs reuse them: the setup is ~70 s on one core).
#   make_fixture.sh CUZK_CLI DIR  ->  DIR/sector-2k/{vanilla_proofs,commitments,sector}.json, DIR/params/*.params|.vk
set -euo pipefail
cli=$1
dir=$2
mkdir -p "$dir/params"
"$cli" snap gen-vanilla --sector-size 2KiB --seed 1 --out "$dir/sector-2k" >/dev/null
if ls "$dir"/params/*-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params >/dev/null 2>&1 &&
   ls "$dir"/params/*-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk >/dev/null 2>&1; then
  echo "fixture: reusing parameters in $dir/params"
else
  # Into a scratch directory first: an interrupted setup never leaves a truncated file behind.
  rm -rf "$dir/params.tmp"
  "$cli" snap setup --sector-size 2KiB --param-cache "$dir/params.tmp"
  mv "$dir"/params.tmp/* "$dir/params/"
  rmdir "$dir/params.tmp"
fi
echo "fixture: ready in $dir"
