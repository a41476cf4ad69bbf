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
