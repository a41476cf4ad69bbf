#!/usr/bin/env bash
# CTest fixture (FIXTURES_SETUP daemon_r1cs_fixture): a small circom circuit
# with a snarkjs Groth16 zkey and a witness (tests/oracle/snarkjs_artifacts.sh,
# cached by content hash), laid out as a daemon parameter directory for
# GENERIC_R1CS jobs:  DIR/multi_public.{r1cs,zkey,wtns}
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir=$1
art=$("$here/../oracle/snarkjs_artifacts.sh" multi_public '{"a": ["7", "1", "4", "9"], "b": "21"}' | tail -n 1)
mkdir -p "$dir"
cp "$art/circuit.r1cs" "$dir/multi_public.r1cs"
cp "$art/circuit.zkey" "$dir/multi_public.zkey"
cp "$art/witness.wtns" "$dir/multi_public.wtns"
echo "r1cs fixture: ready in $dir"
