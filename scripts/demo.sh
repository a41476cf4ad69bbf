#!/usr/bin/env bash
# The README's main job: set up a fresh machine, build, start the proving
# daemon with its defaults (on a temporary unix socket), and prove a
# SnapDeals (EmptySectorUpdate) test sector through it over gRPC:
#   generate a test sector and its vanilla proofs -> local Groth16 setup
#   (cached) -> cuzk-daemon -> cuzk-bench single (SubmitProof + AwaitProof)
#   -> cuzk-cli snap verify -> timings -> SIGTERM the daemon.
#   CUZK_DEMO_SECTOR  sector size (default 2KiB; 1KiB is the quickest)
#   CUZK_DEMO_DIR     work directory (default ./demo-out; parameters cached there)
#   CUZK_BUILD_DIR    build directory (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${CUZK_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "${CUZK_BUILD_JOBS:-2}" --target cuzk-cli cuzk-daemon cuzk-bench
cli="$build/bin/cuzk-cli"
daemon="$build/bin/cuzk-daemon"
bench="$build/bin/cuzk-bench"

sector=${CUZK_DEMO_SECTOR:-2KiB}
work=$(realpath -m "${CUZK_DEMO_DIR:-demo-out}")
mkdir -p "$work/params"
sector_dir="$work/sector-$sector"
proof="$work/proof-$sector.bin"

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
# setup refuses to overwrite: an existing file for this shape is reused
"$cli" snap setup --sector-size "$sector" --param-cache "$work/params" 2>/dev/null || echo "(reusing cached parameters)"
t_setup=$(elapsed "$t")

echo "== start cuzk-daemon (defaults; socket and parameters from the work directory)"
run=$(mktemp -d /tmp/cuzk-demo-XXXXXX)
socket="$run/cuzk.sock"
daemon_pid=""
cleanup() {
  if [[ -n "$daemon_pid" ]] && kill -0 "$daemon_pid" 2>/dev/null; then kill -TERM "$daemon_pid"; wait "$daemon_pid" || true; fi
  rm -rf "$run"
}
trap cleanup EXIT
t=$(now)
"$daemon" --listen "unix://$socket" --param-cache "$work/params" >"$run/ready" 2>"$work/daemon.log" &
daemon_pid=$!
for _ in $(seq 300); do
  grep -q '^READY' "$run/ready" 2>/dev/null && break
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/daemon.log"; echo "cuzk-daemon exited"; exit 1; }
  sleep 0.1
done
grep -q '^READY' "$run/ready" || { cat "$work/daemon.log"; echo "cuzk-daemon did not become ready"; exit 1; }
t_start=$(elapsed "$t")
cat "$run/ready"

echo "== prove through the daemon (cuzk-bench single)"
t=$(now)
"$bench" single --addr "unix://$socket" --dir "$sector_dir" --out "$proof" --request-id "demo-$sector" | tee "$run/single"
t_prove=$(elapsed "$t")
"$bench" status --addr "unix://$socket"

echo "== verify (cuzk-cli snap verify)"
t=$(now)
"$cli" snap verify --dir "$sector_dir" --param-cache "$work/params" --proof "$proof"
t_verify=$(elapsed "$t")

echo "== stop the daemon (SIGTERM)"
kill -TERM "$daemon_pid"
code=0
wait "$daemon_pid" || code=$?
daemon_pid=""
echo "cuzk-daemon exited with $code (log: $work/daemon.log)"

printf '\n%-34s %10s\n' "step ($sector)" "seconds"
printf '%-34s %10s\n' "gen-vanilla" "$t_gen" "setup (or cache)" "$t_setup" "daemon start" "$t_start" \
  "prove via daemon (client wall)" "$t_prove" "verify" "$t_verify"
sed -n 's/^  queue/daemon timings: queue/p' "$run/single"
echo "proof: $proof ($(stat -c %s "$proof") bytes)"
exit "$code"
