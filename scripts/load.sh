#!/usr/bin/env bash
# The 1000-job load (issue 19): starts a cuzk-daemon on the circom r1cs
# fixture (GENERIC_R1CS multi_public: tiny proofs), runs cuzk-load against it
# (every job queued at once, GetStatus and /metrics polled at 100 Hz each, the
# daemon's RSS sampled), prints cuzk-load's summary JSON and stops the daemon.
#   scripts/load.sh [JOBS] [BUILD_DIR]          (defaults: 1000, build)
# Environment:
#   CUZK_LOAD_FIXTURE  the r1cs fixture dir (default BUILD/tests/daemon/r1cs-fixture, made if missing)
#   CUZK_LOAD_TOML     extra config lines for the daemon (e.g. "[pipeline]\nsynthesis_concurrency = 2")
#   CUZK_LOAD_ARGS     extra cuzk-load flags (e.g. "--max-rss-mib 512 --poll-hz 50")
#   CUZK_LOAD_JSON     also write the summary there
# Exit status: cuzk-load's (0 only with no lost job, no bad proof, no poll
# error and no counter that went down), or 3 if the daemon exited with an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${1:-1000}
build=$(cd "${2:-$root/build}" && pwd)
fixture=${CUZK_LOAD_FIXTURE:-$build/tests/daemon/r1cs-fixture}
if [[ ! -f $fixture/multi_public.zkey ]]; then
  "$root/tests/daemon/make_r1cs_fixture.sh" "$fixture"
fi
for bin in cuzk-daemon cuzk-load; do
  [[ -x $build/bin/$bin ]] || { echo "load.sh: $build/bin/$bin is missing (ninja -C $build $bin)" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/cuzk-load.XXXXXX)
daemon_pid=
cleanup() {
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then kill -KILL "$daemon_pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
printf '[daemon]\nlisten = "unix://%s/cuzk.sock"\nstatus_listen = "127.0.0.1:0"\n[srs]\nparam_cache = "%s"\n%b\n' \
  "$dir" "$fixture" "${CUZK_LOAD_TOML:-}" >"$dir/cuzk.toml"
"$build/bin/cuzk-daemon" --config "$dir/cuzk.toml" >"$dir/stdout" 2>"$dir/daemon.log" &
daemon_pid=$!
for _ in $(seq 600); do
  grep -q '^READY ' "$dir/stdout" 2>/dev/null && break
  kill -0 "$daemon_pid" 2>/dev/null || { echo "load.sh: the daemon exited:" >&2; tail -n 20 "$dir/daemon.log" >&2; exit 3; }
  sleep 0.1
done
ready=$(grep -m 1 '^READY ' "$dir/stdout") || { echo "load.sh: no READY in 60 s" >&2; exit 3; }
status=$(grep -o 'status=127.0.0.1:[0-9]*' <<<"$ready" | cut -d= -f2)
echo "load.sh: daemon $daemon_pid ready ($ready); $jobs jobs" >&2

rc=0
# shellcheck disable=SC2086  # CUZK_LOAD_ARGS: several flags
"$build/bin/cuzk-load" --addr "unix://$dir/cuzk.sock" --status "$status" --jobs "$jobs" --circuit-id multi_public \
  --wtns "$fixture/multi_public.wtns" --zkey "$fixture/multi_public.zkey" --daemon-pid "$daemon_pid" \
  ${CUZK_LOAD_JSON:+--json "$CUZK_LOAD_JSON"} ${CUZK_LOAD_ARGS:-} || rc=$?

kill -TERM "$daemon_pid"
daemon_rc=0
wait "$daemon_pid" || daemon_rc=$?
daemon_pid=
if ((daemon_rc != 0)); then
  echo "load.sh: the daemon exited with $daemon_rc after SIGTERM:" >&2
  tail -n 20 "$dir/daemon.log" >&2
  ((rc == 0)) && rc=3
fi
exit $rc
