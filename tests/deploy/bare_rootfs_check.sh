#!/usr/bin/env bash
# Runs a bundle inside a minimal root filesystem that has none of the project's
# libraries (no gRPC, protobuf, Abseil, spdlog, jemalloc, toml++...), the way a
# bare GPU host has none. Not a CTest test (it needs a debootstrap, minutes and
# a Debian mirror); run by hand as root:
#
#   debootstrap --variant=minbase bookworm /tmp/bare-bookworm      # once
#   scripts/bundle.sh --build-dir build-deploy --out /tmp/cuzk.tar.gz
#   tests/deploy/bare_rootfs_check.sh /tmp/bare-bookworm /tmp/cuzk.tar.gz
#
# Checks: the rootfs really lacks the libraries; bin/cuzk-check passes; every
# tool starts (--help); the daemon, if bundled, prints READY, answers
# GET /status and exits 0 on SIGTERM. /proc is mounted for the run and
# unmounted after.
set -euo pipefail
rootfs=${1:?usage: bare_rootfs_check.sh ROOTFS BUNDLE.tar.gz}
tarball=${2:?usage: bare_rootfs_check.sh ROOTFS BUNDLE.tar.gz}
[[ $(id -u) -eq 0 ]] || { echo "needs root (chroot, mount)"; exit 2; }
[[ -x $rootfs/bin/bash ]] || { echo "$rootfs is not a root filesystem (no /bin/bash)"; exit 2; }
work=/root/cuzk-bundle-check
rm -rf "${rootfs:?}$work"
mkdir -p "$rootfs$work"
cp "$tarball" "$rootfs$work/bundle.tar.gz"
mounted=0
if ! mountpoint -q "$rootfs/proc"; then mount -t proc proc "$rootfs/proc"; mounted=1; fi
cleanup() { if ((mounted)); then umount "$rootfs/proc"; fi; }
trap cleanup EXIT

chroot "$rootfs" /bin/bash -s "$work" <<'INNER'
set -uo pipefail
work=$1
cd "$work"
fail=0
echo "rootfs: $(. /etc/os-release; echo "$PRETTY_NAME"), $(dpkg-query -W -f='${Package}\n' | wc -l) packages"
found=$(ls /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu 2>/dev/null | grep -E '^lib(grpc|absl|protobuf|spdlog|fmt|jemalloc|tomlplusplus|cares|re2|upb)' | sort -u)
if [[ -n $found ]]; then echo "FAIL: the rootfs is not bare, it has: $found"; exit 1; fi
echo "ok: no gRPC/protobuf/Abseil/spdlog/fmt/jemalloc/toml++ libraries in the rootfs"
mkdir u && tar -xzf bundle.tar.gz -C u
b=$(ls -d u/*)
"$b/bin/cuzk-check" || fail=1
for t in "$b"/libexec/*; do
  t=$(basename "$t")
  out=$(env -i PATH=/usr/bin:/bin "$b/bin/$t" --help 2>&1); rc=$?
  if ((rc > 2)) || ! grep -qi usage <<<"$out"; then echo "FAIL: $t --help (exit $rc): $out" | head -3; fail=1
  else echo "ok: $t --help: $(head -1 <<<"$out")"; fi
done
if [[ -x $b/bin/cuzk-daemon ]]; then
  mkdir -p params
  printf '[daemon]\nlisten = "127.0.0.1:0"\nstatus_listen = "127.0.0.1:0"\nshutdown_grace = "5s"\n[srs]\nparam_cache = "%s/params"\n' "$work" >cuzk.toml
  env -i PATH=/usr/bin:/bin "$b/bin/cuzk-daemon" --config cuzk.toml >daemon.out 2>daemon.err &
  pid=$!
  for _ in $(seq 150); do grep -q '^READY ' daemon.out 2>/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 0.2; done
  ready=$(grep '^READY ' daemon.out)
  if [[ -z $ready ]]; then echo "FAIL: no READY: $(tail -3 daemon.err)"; fail=1; kill -9 $pid 2>/dev/null
  else
    echo "ok: $ready"
    status=$(sed -n 's/.* status=\([^ ]*\).*/\1/p' <<<"$ready")
    exec 3<>"/dev/tcp/${status%:*}/${status##*:}"
    printf 'GET /status HTTP/1.0\r\nHost: x\r\n\r\n' >&3
    resp=$(timeout 10 cat <&3); exec 3<&-
    if grep -q '^HTTP/1\.[01] 200' <<<"$resp"; then echo "ok: GET /status: $(grep -c . <<<"$resp") lines of JSON"; else echo "FAIL: GET /status"; fail=1; fi
    kill -TERM $pid; wait $pid; rc=$?
    if ((rc == 0)); then echo "ok: SIGTERM -> exit 0"; else echo "FAIL: exit $rc after SIGTERM"; fail=1; fi
    sed 's/^/  daemon: /' daemon.err | head -8
  fi
fi
((fail == 0)) && echo "bare rootfs check: ok" || echo "bare rootfs check: FAILED"
exit $fail
INNER
