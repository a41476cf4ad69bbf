#!/usr/bin/env bash
# Writes a relocatable cuzk bundle: a tarball that runs on a host with only the
# NVIDIA driver (e.g. Ubuntu 24.04 + CUDA 13 driver), with nothing to install.
#
#   scripts/bundle.sh [--build-dir DIR] [--build] [--out FILE.tar.gz | --no-tar]
#                     [--stage DIR] [--name NAME]
#
#   --build-dir DIR  build tree whose bin/ holds the executables (default: build)
#   --build          configure and build the bundled tools first (Release, tests
#                    off; extra cmake arguments from CUZK_CMAKE_ARGS, e.g.
#                    CUZK_CMAKE_ARGS='-DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90')
#   --out FILE       tarball to write (default: out/<name>.tar.gz)
#   --no-tar         only lay out the bundle directory (needs --stage)
#   --stage DIR      lay the bundle out in DIR (created; must be empty or absent)
#                    instead of a temporary directory, and keep it
#   --name NAME      top-level folder inside the tarball (default:
#                    cuzk-<version>-<arch>-<commit>)
#
# Layout (every path relative to the unpacked folder, so it can live anywhere):
#   bin/<tool>        launcher: puts lib/ first on LD_LIBRARY_PATH, execs libexec/<tool>
#   bin/cuzk-check    checks this host can run the bundle (glibc, libraries, GPU devices)
#   bin/cuzk-smoke    end to end on this host: daemon, status, metrics, a SnapDeals job
#   libexec/<tool>    the executables as built
#   lib/              every shared library they need except glibc's own and the
#                     NVIDIA driver's (those must come from the host)
#   etc/, share/cuzk/ example configs, the systemd unit, docs/deploy.md
#   MANIFEST          what was bundled, from which build, needing which glibc
#
# Tools: cuzk-daemon, cuzk-cli, cuzk-bench, cuzk-gpu-bench; a missing one is
# skipped with a note (the daemon and the GPU bench exist only in builds that
# have them), at least one must be present.
#
# Libraries are found with ldd (its transitive closure). Libraries a program
# dlopen()s are not seen by ldd; the CUDA runtime is linked statically and
# dlopen()s only the driver's libcuda, which must come from the host anyway.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
repo=$PWD
abspath() { case $1 in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }

TOOLS=(cuzk-daemon cuzk-cli cuzk-bench cuzk-gpu-bench)
# glibc's own libraries: they must match the host's dynamic loader, so they
# are never bundled (the host's glibc must be at least as new as the build's).
GLIBC_RE='^(ld-linux[^/]*\.so(\.[0-9]+)*|libc\.so\.6|libm\.so\.6|libmvec\.so\.1|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|libBrokenLocale\.so\.1|libnss_[a-z]+\.so\.2|libthread_db\.so\.1)$'
# The NVIDIA driver's user-space libraries: tied to the host's kernel module.
DRIVER_RE='^(libcuda\.so(\.[0-9]+)*|libnvidia-[A-Za-z0-9_.-]+\.so(\.[0-9.]+)?|libnvcuvid\.so(\.[0-9]+)*|libcudadebugger\.so(\.[0-9]+)*)$'

die() { echo "bundle: error: $*" >&2; exit 1; }
note() { echo "bundle: $*" >&2; }

build_dir=$repo/build
do_build=0
out=""
stage=""
name=""
make_tar=1
while (($#)); do
  case $1 in
    --build-dir) build_dir=$(abspath "${2:?--build-dir needs a directory}"); shift 2 ;;
    --build) do_build=1; shift ;;
    --out) out=$(abspath "${2:?--out needs a file}"); shift 2 ;;
    --no-tar) make_tar=0; shift ;;
    --stage) stage=$(abspath "${2:?--stage needs a directory}"); shift 2 ;;
    --name) name=${2:?--name needs a value}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
((make_tar)) || [[ -n $stage ]] || die "--no-tar needs --stage DIR (otherwise nothing would be kept)"

command -v ldd >/dev/null || die "ldd not found (it comes with glibc: libc-bin)"
command -v readelf >/dev/null || die "readelf not found (install binutils)"

if ((do_build)); then
  # shellcheck disable=SC2086  # CUZK_CMAKE_ARGS is a list of words on purpose
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_BUILD_TESTS=OFF \
    -DCUZK_BUILD_BENCHMARKS=OFF ${CUZK_CMAKE_ARGS:-}
  targets=()
  # Build only targets this configuration defines (no daemon folder yet, no CUDA...).
  # The list is read whole first: `ninja ... | grep -q` would fail under pipefail
  # whenever grep stops reading early.
  defined=$(ninja -C "$build_dir" -t targets all 2>/dev/null || true)
  for t in "${TOOLS[@]}"; do
    if grep -q "^$t: " <<<"$defined"; then targets+=("$t"); fi
  done
  ((${#targets[@]})) || die "the build in $build_dir defines none of: ${TOOLS[*]}"
  cmake --build "$build_dir" --target "${targets[@]}" -j "${CUZK_BUILD_JOBS:-2}"
fi

bin_dir=$build_dir/bin
[[ -d $bin_dir ]] || die "no $bin_dir: build first (or pass --build / --build-dir)"
present=()
for t in "${TOOLS[@]}"; do
  if [[ -x $bin_dir/$t && -f $bin_dir/$t ]]; then
    present+=("$t")
  else
    note "skipping $t: not built in $bin_dir"
  fi
done
((${#present[@]})) || die "none of ${TOOLS[*]} is in $bin_dir"

arch=$(uname -m)
commit=${CUZK_BUNDLE_COMMIT:-$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
dirty=""
if [[ -z ${CUZK_BUNDLE_COMMIT:-} ]] && git -C "$repo" rev-parse HEAD >/dev/null 2>&1 \
   && ! git -C "$repo" diff --quiet HEAD -- 2>/dev/null; then
  dirty="-dirty"
fi
version=$(sed -n 's/^project(cuzk VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
[[ -n $name ]] || name="cuzk-${version:-0}-${arch}-${commit}${dirty}"
[[ $name != */* && $name != . && $name != .. ]] || die "--name must be a plain folder name, not '$name'"

if [[ -n $stage ]]; then
  if [[ -e $stage ]]; then
    [[ -d $stage && -z $(ls -A "$stage") ]] || die "--stage $stage exists and is not an empty directory"
  fi
  mkdir -p "$stage"
  root=$(cd "$stage" && pwd -P)
  tmp=""
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  root=$tmp/$name
  mkdir -p "$root"
fi
mkdir -p "$root/bin" "$root/libexec" "$root/lib" "$root/etc" "$root/share/cuzk"

# ---- executables and the libraries ldd says they load --------------------------
declare -A lib_src=()      # soname -> path on this machine
declare -A lib_users=()    # soname -> tools that need it
declare -A host_libs=()    # soname -> "glibc" | "driver"
max_glibc=""
glibc_of() {  # highest GLIBC_x.y symbol version a file references
  readelf -W --dyn-syms --version-info "$1" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' |
    sort -uV | tail -1 || true
}
bump_glibc() {
  local v=$1
  [[ -n $v ]] || return 0
  if [[ -z $max_glibc ]] || [[ $(printf '%s\n%s\n' "$max_glibc" "$v" | sort -V | tail -1) == "$v" ]]; then
    max_glibc=$v
  fi
}
for t in "${present[@]}"; do
  exe=$bin_dir/$t
  # RPATH (unlike RUNPATH) is searched before LD_LIBRARY_PATH: a build-tree
  # path there could shadow the bundle's libraries on a host that has it.
  dyn=$(readelf -d "$exe")
  if grep -q '(RPATH)' <<<"$dyn"; then
    note "warning: $t has an RPATH ($(sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p' <<<"$dyn")); it is searched before the bundle's lib/"
  fi
  ldd_out=$(ldd "$exe" 2>&1) || die "ldd $exe failed: $ldd_out"
  if grep -q 'not found' <<<"$ldd_out"; then
    die "$t needs libraries this machine does not have:"$'\n'"$(grep 'not found' <<<"$ldd_out")"
  fi
  while read -r soname arrow path _; do
    [[ $arrow == "=>" && -n $path && $path == /* ]] || continue
    if [[ $soname =~ $GLIBC_RE ]]; then host_libs[$soname]=glibc; continue; fi
    if [[ $soname =~ $DRIVER_RE ]]; then host_libs[$soname]=driver; continue; fi
    if [[ -n ${lib_src[$soname]:-} && ${lib_src[$soname]} != "$path" ]]; then
      die "$soname resolves to both ${lib_src[$soname]} and $path"
    fi
    lib_src[$soname]=$path
    lib_users[$soname]="${lib_users[$soname]:-} $t"
  done <<<"$ldd_out"
  cp -p "$exe" "$root/libexec/$t"
  bump_glibc "$(glibc_of "$exe")"
done
for soname in "${!lib_src[@]}"; do
  cp -pL "${lib_src[$soname]}" "$root/lib/$soname"
  chmod 0644 "$root/lib/$soname"
  bump_glibc "$(glibc_of "$root/lib/$soname")"
done

# ---- launchers -------------------------------------------------------------------
for t in "${present[@]}"; do
  cat >"$root/bin/$t" <<EOF
#!/usr/bin/env bash
# cuzk bundle launcher for $t: the bundle's lib/ goes first on the library path,
# wherever the bundle was unpacked (symlinks to this file are followed).
# CUZK_BUNDLE_WRAPPER runs the program under another command, e.g. ldd or
# "gdb --args" (split into words on spaces).
self=\$(readlink -f -- "\$0" 2>/dev/null) || self=\$0
root=\$(cd -- "\$(dirname -- "\$self")/.." && pwd -P) || exit 127
export LD_LIBRARY_PATH="\$root/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
if [[ -n \${CUZK_BUNDLE_WRAPPER:-} ]]; then
  exec \$CUZK_BUNDLE_WRAPPER "\$root/libexec/$t" "\$@"
fi
exec -a "\$0" "\$root/libexec/$t" "\$@"
EOF
  chmod 0755 "$root/bin/$t"
done

# ---- host check --------------------------------------------------------------------
cat >"$root/bin/cuzk-check" <<'EOF'
#!/bin/sh
# Checks that this host can run the bundle: glibc new enough, every library of
# every bundled program resolvable (inside lib/ or, for glibc and the NVIDIA
# driver, on the host), and whether NVIDIA devices and the driver are there.
# Exit 0: the programs can start; 1: something they need is missing.
self=$(readlink -f -- "$0" 2>/dev/null) || self=$0
root=$(cd -- "$(dirname -- "$self")/.." && pwd -P) || exit 1
status=0
need=$(sed -n 's/^glibc_min: //p' "$root/MANIFEST")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')
if [ -n "$need" ] && [ -n "$have" ]; then
  if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n1)" = "$need" ]; then
    echo "ok: glibc $have (bundle needs >= $need)"
  else
    echo "FAIL: glibc $have is older than the $need the bundle was built against"; status=1
  fi
fi
for exe in "$root"/libexec/*; do
  t=$(basename "$exe")
  out=$(CUZK_BUNDLE_WRAPPER=ldd "$root/bin/$t" 2>&1)
  if echo "$out" | grep -q 'not found'; then
    echo "FAIL: $t: $(echo "$out" | grep 'not found' | tr -s ' \t' ' ' | tr '\n' ';')"; status=1
  else
    echo "ok: $t: all libraries resolve"
  fi
done
if ls /dev/nvidiactl >/dev/null 2>&1; then
  echo "ok: /dev/nvidiactl present ($(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l) GPU device nodes)"
else
  echo "note: no /dev/nvidiactl: no NVIDIA driver loaded (the daemon then proves on the CPU)"
fi
if [ -e /dev/nvidiactl ] && ! ls /dev/nvidia-uvm >/dev/null 2>&1; then
  echo "note: no /dev/nvidia-uvm yet (created on first CUDA use by root, nvidia-modprobe or nvidia-persistenced)"
fi
if command -v ldconfig >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
  echo "ok: driver library libcuda.so.1 registered with the dynamic loader"
elif [ -e /dev/nvidiactl ]; then
  echo "note: libcuda.so.1 not in the loader cache (CUDA programs will fail to find the driver)"
fi
exit $status
EOF
chmod 0755 "$root/bin/cuzk-check"

# ---- configs, unit, docs -----------------------------------------------------------
copy_opt() {  # copy_opt SRC DEST: copy when the source exists, note otherwise
  if [[ -f $repo/$1 ]]; then cp -p "$repo/$1" "$root/$2"; else note "not in this checkout: $1 (left out)"; fi
}
copy_opt daemon/cuzk.example.toml etc/cuzk.example.toml
copy_opt deploy/cuzk.toml etc/cuzk.toml
copy_opt deploy/cuzk-daemon.service share/cuzk/cuzk-daemon.service
copy_opt deploy/cuzk.sysusers share/cuzk/cuzk.sysusers
copy_opt docs/deploy.md share/cuzk/deploy.md
copy_opt deploy/cuzk-smoke.sh bin/cuzk-smoke

# ---- manifest ----------------------------------------------------------------------
cuda_archs=""
cuda_on=""
if [[ -f $build_dir/CMakeCache.txt ]]; then
  cuda_archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
fi
# The CUDA compiler CMake enabled (not a cache entry: CMakeLists sets it).
cuda_cmake=$(ls "$build_dir"/CMakeFiles/*/CMakeCUDACompiler.cmake 2>/dev/null | head -1 || true)
if [[ -n $cuda_cmake ]]; then
  cuda_on="$(sed -n 's/^set(CMAKE_CUDA_COMPILER "\(.*\)")$/\1/p' "$cuda_cmake") $(sed -n 's/^set(CMAKE_CUDA_COMPILER_VERSION "\(.*\)")$/\1/p' "$cuda_cmake")"
fi
{
  echo "name: $name"
  echo "version: ${version:-unknown}"
  echo "commit: $commit$dirty"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME" || uname -sr)"
  echo "arch: $arch"
  echo "glibc_min: ${max_glibc:-unknown}"
  echo "glibc_build: $(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')"
  echo "cuda_compiler: ${cuda_on:-none}"
  echo "cuda_architectures: ${cuda_archs:-none}"
  echo "tools: ${present[*]}"
  for t in "${TOOLS[@]}"; do
    [[ " ${present[*]} " == *" $t "* ]] || echo "missing: $t (not built in the source build)"
  done
  echo "from_host:"
  for s in $(printf '%s\n' "${!host_libs[@]}" | sort); do echo "  $s (${host_libs[$s]})"; done
  echo "bundled:"
  for s in $(printf '%s\n' "${!lib_src[@]}" | sort); do
    echo "  $s <- ${lib_src[$s]} (for${lib_users[$s]})"
  done
} >"$root/MANIFEST"

note "bundled ${present[*]} with ${#lib_src[@]} libraries (host provides: $(printf '%s ' "${!host_libs[@]}" | tr ' ' '\n' | sort | tr '\n' ' '))"
note "needs glibc >= ${max_glibc:-unknown} on the host"
if [[ -n $stage ]]; then note "bundle laid out in $root"; fi

if ((make_tar)); then
  [[ -n $out ]] || out=$repo/out/$name.tar.gz
  mkdir -p "$(dirname "$out")"
  parent=$(dirname "$root")
  base=$(basename "$root")
  # With --stage the folder inside the tarball still gets the bundle's name.
  rename=()
  [[ $base == "$name" ]] || rename=(--transform "s|^$(sed 's/[][\\.*^$|]/\\&/g' <<<"$base")|$name|")
  tar --owner=0 --group=0 --numeric-owner --sort=name "${rename[@]}" -C "$parent" -czf "$out.tmp" "$base"
  mv -f "$out.tmp" "$out"
  note "wrote $out ($(du -h "$out" | cut -f1))"
  echo "$out"
fi
