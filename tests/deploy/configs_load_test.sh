#!/usr/bin/env bash
# The deployment configs (docker/cuzk.docker.toml, deploy/cuzk.toml) load in the
# real daemon: each is started with its listeners moved to kernel-chosen
# loopback ports (--listen/--status-listen; the socket directory and ports of
# the real deployment need not exist here), must print READY and exit 0 on
# SIGTERM. A config the parser refuses (unknown key, bad size) exits 2.
#   tests/deploy/configs_load_test.sh BUILD_DIR      (exit 77 = skipped: no daemon built)
set -uo pipefail
build=${1:?usage: configs_load_test.sh BUILD_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
daemon=$build/bin/cuzk-daemon
[[ -x $daemon ]] || { echo "SKIP: $daemon is not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for cfg in docker/cuzk.docker.toml deploy/cuzk.toml; do
  # Fresh files per run: the shell truncates them in the child, after this loop
  # may already have looked, so a reused file could show the previous READY.
  rm -f "$tmp/out" "$tmp/err"
  : >"$tmp/out"
  # The job journal into this run's directory, not the real deployment's
  # /var/lib/cuzk (which need not exist here, and must not be written).
  sed "s|^state_dir = .*|state_dir = \"$tmp/state\"|" "$repo/$cfg" >"$tmp/config.toml"
  "$daemon" --config "$tmp/config.toml" --listen 127.0.0.1:0 --status-listen 127.0.0.1:0 >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 150); do
    grep -q '^READY ' "$tmp/out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if grep -q '^READY ' "$tmp/out"; then
    kill -TERM "$pid"; wait "$pid"; rc=$?
    if ((rc == 0)); then echo "ok: $cfg loads ($(head -1 "$tmp/out"))"; else echo "FAIL: $cfg: exit $rc after SIGTERM"; fail=1; fi
  else
    kill -KILL "$pid" 2>/dev/null; wait "$pid"; rc=$?
    echo "FAIL: $cfg does not start the daemon (exit $rc): $(tail -3 "$tmp/err")"; fail=1
  fi
done
# And a broken copy must be refused, or the checks above prove nothing.
sed 's/^shutdown_grace = "30s"/shutdown_grace = "30 s"/' "$repo/deploy/cuzk.toml" >"$tmp/broken.toml"
grep -q '"30 s"' "$tmp/broken.toml" || { echo "FAIL: self-check: deploy/cuzk.toml has no shutdown_grace = \"30s\" to break"; exit 1; }
timeout -s KILL 20 "$daemon" --config "$tmp/broken.toml" --listen 127.0.0.1:0 --status-listen off >/dev/null 2>"$tmp/err"
rc=$?
if ((rc == 2)) && grep -q shutdown_grace "$tmp/err"; then
  echo "ok: self-check: a bad duration is refused: $(head -1 "$tmp/err")"
else
  echo "FAIL: self-check: broken config gave exit $rc: $(head -2 "$tmp/err")"; fail=1
fi
exit $fail
