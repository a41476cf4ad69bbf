#!/usr/bin/env bash
# Builds a bundle (scripts/bundle.sh) from the executables of a build tree into a
# temporary directory, unpacks it somewhere else (a path with a space: nothing may
# depend on where it was made), and checks, with LD_LIBRARY_PATH otherwise empty:
#   - every bundled program's libraries resolve through its launcher, and every
#     one that is not glibc's or the NVIDIA driver's resolves inside the bundle;
#   - no glibc or driver library is in the bundle;
#   - each launcher starts its program (--help), also through a symlink;
#   - bin/cuzk-check passes;
#   - and, so that the check can fail: a copy with one bundled library removed
#     is caught by the same resolution check.
#   tests/deploy/bundle_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: bundle_test.sh BUILD_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

GLIBC_RE='^(ld-linux[^/]*\.so(\.[0-9]+)*|libc\.so\.6|libm\.so\.6|libmvec\.so\.1|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|libnss_[a-z]+\.so\.2|libthread_db\.so\.1)$'
DRIVER_RE='^(libcuda\.so(\.[0-9]+)*|libnvidia-[A-Za-z0-9_.-]+\.so(\.[0-9.]+)?)$'
# A clean environment: no inherited LD_LIBRARY_PATH, nothing but the system PATH.
clean_env=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp")

if ! "$repo/scripts/bundle.sh" --build-dir "$build" --out "$tmp/cuzk.tar.gz" >"$tmp/bundle.log" 2>&1; then
  cat "$tmp/bundle.log"
  echo "FAIL: scripts/bundle.sh --build-dir $build failed"
  exit 1
fi
dest="$tmp/unpacked here"
mkdir -p "$dest"
tar -xzf "$tmp/cuzk.tar.gz" -C "$dest"
mapfile -t tops < <(ls "$dest")
[[ ${#tops[@]} -eq 1 ]] || { echo "FAIL: tarball should hold one folder, holds: ${tops[*]}"; exit 1; }
root="$dest/${tops[0]}"
[[ -f $root/MANIFEST ]] || bad "no MANIFEST"
grep -q '^glibc_min: [0-9]' "$root/MANIFEST" || bad "MANIFEST has no glibc_min"

tools=()
for t in cuzk-daemon cuzk-cli cuzk-bench cuzk-gpu-bench; do
  if [[ -x $build/bin/$t ]]; then
    tools+=("$t")
    [[ -x $root/bin/$t && -x $root/libexec/$t ]] || bad "$t is built in $build/bin but not in the bundle"
  elif [[ -e $root/bin/$t ]]; then
    bad "$t is in the bundle but not in $build/bin"
  fi
done
((${#tools[@]})) || { echo "FAIL: $build/bin has none of the bundled tools"; exit 1; }

# resolve_check ROOT: every non-glibc, non-driver library of every program in
# ROOT/libexec resolves inside ROOT/lib when started through ROOT/bin/<tool>.
resolve_check() {
  local r=$1 problems=0 t out line name path
  for exe in "$r"/libexec/*; do
    t=$(basename "$exe")
    out=$("${clean_env[@]}" CUZK_BUNDLE_WRAPPER=ldd "$r/bin/$t" 2>&1) || { echo "  $t: ldd failed: $out"; problems=1; continue; }
    while IFS= read -r line; do
      [[ $line == *"=>"* ]] || continue
      name=$(sed 's/^[[:space:]]*\([^ ]*\) =>.*/\1/' <<<"$line")
      path=$(sed 's/.*=> \(.*\) (0x[0-9a-f]*)$/\1/; s/.*=> //' <<<"$line")
      if [[ $line == *"not found"* ]]; then
        echo "  $t: $name not found"; problems=1
      elif [[ $name =~ $GLIBC_RE || $name =~ $DRIVER_RE ]]; then
        [[ $path != "$r/"* ]] || { echo "  $t: host library $name is taken from the bundle ($path)"; problems=1; }
      elif [[ $path != "$r/lib/"* ]]; then
        echo "  $t: $name resolves outside the bundle: $path"; problems=1
      fi
    done <<<"$out"
  done
  return $problems
}

if ! msgs=$(resolve_check "$root"); then bad "library resolution:"$'\n'"$msgs"; fi
for f in "$root"/lib/*; do
  n=$(basename "$f")
  [[ $n =~ $GLIBC_RE || $n =~ $DRIVER_RE ]] && bad "the bundle ships $n, which must come from the host"
done

for t in "${tools[@]}"; do
  set +e
  out=$("${clean_env[@]}" "$root/bin/$t" --help 2>&1)
  rc=$?
  set -e
  if [[ $out == *"error while loading shared libraries"* ]] || ((rc > 2)) || ! grep -qi 'usage' <<<"$out"; then
    bad "$t --help through the launcher (exit $rc): $(head -5 <<<"$out")"
  else
    echo "ok: $t --help (exit $rc): $(head -1 <<<"$out")"
  fi
done
mkdir -p "$tmp/elsewhere"
ln -s "$root/bin/${tools[0]}" "$tmp/elsewhere/linked-tool"
set +e
out=$("${clean_env[@]}" "$tmp/elsewhere/linked-tool" --help 2>&1)
rc=$?
set -e
if ((rc > 2)) || ! grep -qi usage <<<"$out"; then bad "launcher through a symlink (exit $rc): $(head -3 <<<"$out")"; fi
if ! out=$("${clean_env[@]}" "$root/bin/cuzk-check" 2>&1); then bad "bin/cuzk-check: $out"; else echo "$out"; fi

# The bundled daemon serves: started through its launcher with a config in the
# temporary directory (kernel-chosen ports, read from its READY line), it answers
# GET /status, and the bundled client's GetStatus/GetMetrics when the client has
# them; SIGTERM ends it with exit code 0.
http_get() {  # http_get HOST PORT PATH -> response on stdout (bash's /dev/tcp: no curl needed)
  exec 3<>"/dev/tcp/$1/$2" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$3" "$1" >&3
  timeout 10 cat <&3
  exec 3<&-
}
if [[ -x $root/bin/cuzk-daemon ]]; then
  mkdir -p "$tmp/params"
  cat >"$tmp/daemon.toml" <<EOF
[daemon]
listen = "127.0.0.1:0"
status_listen = "127.0.0.1:0"
shutdown_grace = "5s"
[srs]
param_cache = "$tmp/params"
EOF
  "${clean_env[@]}" "$root/bin/cuzk-daemon" --config "$tmp/daemon.toml" >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
  dpid=$!
  for _ in $(seq 150); do
    grep -q '^READY ' "$tmp/daemon.out" 2>/dev/null && break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.2
  done
  ready=$(grep '^READY ' "$tmp/daemon.out" || true)
  if [[ -z $ready ]]; then
    bad "bundled cuzk-daemon did not print READY within 30 s: $(tail -5 "$tmp/daemon.err")"
    kill -KILL "$dpid" 2>/dev/null || true
  else
    echo "ok: bundled daemon: $ready"
    grpc=$(sed -n 's/.* grpc=\([^ ]*\).*/\1/p' <<<"$ready")
    status=$(sed -n 's/.* status=\([^ ]*\).*/\1/p' <<<"$ready")
    if resp=$(http_get "${status%:*}" "${status##*:}" /status) && grep -q '^HTTP/1\.[01] 200' <<<"$resp" \
       && grep -q '"memory"' <<<"$resp"; then
      echo "ok: GET /status from the bundled daemon"
    else
      bad "GET /status on $status: $(head -3 <<<"${resp:-no answer}")"
    fi
    bench_help=$("${clean_env[@]}" "$root/bin/cuzk-bench" --help 2>&1 || true)
    if grep -Eq '^  status( |$)' <<<"$bench_help"; then
      for sub in status metrics; do
        if out=$("${clean_env[@]}" timeout 30 "$root/bin/cuzk-bench" "$sub" --addr "$grpc" 2>&1); then
          echo "ok: cuzk-bench $sub --addr $grpc: $(head -1 <<<"$out")"
        else
          bad "cuzk-bench $sub --addr $grpc: $(head -3 <<<"$out")"
        fi
      done
    else
      echo "note: this cuzk-bench has no 'status' command yet; GetStatus over gRPC not tried"
    fi
    kill -TERM "$dpid"
    set +e
    timeout 20 tail --pid="$dpid" -f /dev/null
    wait "$dpid"
    drc=$?
    set -e
    if ((drc == 0)); then echo "ok: SIGTERM -> exit 0"; else bad "bundled daemon exited $drc after SIGTERM: $(tail -3 "$tmp/daemon.err")"; fi
  fi
fi

# The check above must be able to fail: remove one bundled library from a copy.
victim=$(ls "$root/lib" | head -1)
if [[ -n $victim ]]; then
  cp -a "$root" "$tmp/broken"
  rm "$tmp/broken/lib/$victim"
  if msgs=$(resolve_check "$tmp/broken"); then
    bad "self-check: with lib/$victim removed the resolution check still passed"
  else
    echo "ok: self-check: removing lib/$victim is caught:"$'\n'"$msgs" | head -4
  fi
  if out=$("${clean_env[@]}" "$tmp/broken/bin/cuzk-check" 2>&1); then
    # On a machine that has the library installed system-wide the loader finds it
    # there, so cuzk-check (which asks only "does it load") may pass; resolve_check
    # (which asks "from the bundle") is the one that must fail.
    echo "note: cuzk-check passes on the broken copy because this machine has $victim installed"
  fi
fi

echo "bundled: ${tools[*]} with $(ls "$root/lib" | wc -l) libraries; $(sed -n 's/^glibc_min: /needs glibc >= /p' "$root/MANIFEST")"
if ((fail)); then echo "bundle test: FAILED"; exit 1; fi
echo "bundle test: ok"
