#!/usr/bin/env bash
# Builds the cuzk container image without any image registry: the base root
# file system comes from Debian packages (debootstrap, Debian 12 bookworm,
# minbase, from the mirror this machine's apt uses), the programs and their
# shared libraries from a CMake build tree through scripts/bundle.sh, and the
# image is committed with Debian's buildah into the local container storage,
# then saved as a tarball that `podman load` / `docker load` accept.
#
#   scripts/image.sh [--build-dir DIR] [--tag NAME:TAG] [--out FILE.tar | --no-save]
#                    [--cache DIR] [--refresh-base] [--format docker|oci]
#
#   --build-dir DIR  CMake build tree whose bin/ holds cuzk-daemon and cuzk-cli
#                    (default: build). A CPU-only tree is enough:
#                      cmake -S . -B build-image -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=OFF
#                      ninja -C build-image cuzk-daemon cuzk-cli cuzk-bench
#   --tag NAME:TAG   image name (default: cuzk:<commit>; cuzk:latest is set too)
#   --out FILE       where to save the image (default: out/cuzk-image-<commit>.tar)
#   --no-save        leave the image in the container storage only
#   --cache DIR      where the debootstrap root file system is kept between runs
#                    (default: $CUZK_IMAGE_CACHE or out/image-cache)
#   --refresh-base   run debootstrap again even if the cache holds a base
#   --base-only      only make (or check) the cached base root file system
#   --format F       docker (default: keeps HEALTHCHECK, which the OCI image
#                    config has no field for) or oci; the tarball is a
#                    docker-archive or an oci-archive accordingly
#
# Environment: CUZK_IMAGE_MIRROR (Debian mirror; default: the one apt uses here,
# read from /etc/apt/sources.list*), CUZK_BUILDAH_OPTS (global buildah/podman
# options, e.g. "--storage-driver=vfs" where overlay cannot be mounted).
#
# The image has the layout of docker/Dockerfile's runtime stage, so both
# recipes give the same container: the bundle in /opt/cuzk (bin/ launchers,
# lib/ with every library but glibc's and the NVIDIA driver's), the config
# docker/cuzk.docker.toml as /etc/cuzk/cuzk.toml, user cuzk (10001:10001),
# volumes /var/lib/cuzk/params, /var/lib/cuzk/srs-cache and /run/cuzk, ports 9820 (gRPC) and 9821
# (/status, /metrics), ENTRYPOINT cuzk-daemon --config /etc/cuzk/cuzk.toml.
# What differs is the base: Debian 12 minbase here (glibc 2.36, the build
# machine's), nvidia/cuda base on Ubuntu 24.04 there. The NVIDIA driver comes
# from the host in both (Container Toolkit / CDI), so either base serves a GPU.
#
# Needs root (debootstrap, chroot, buildah mount). Installs podman, buildah and
# debootstrap with apt-get where they are missing (CI does not need them, so
# scripts/setup.sh does not install them).
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
repo=$PWD
abspath() { case $1 in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }
die() { echo "image: error: $*" >&2; exit 1; }
note() { echo "image: $*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

readonly SUITE=bookworm VARIANT=minbase UID_GID=10001
build_dir=$repo/build
tag=""
out=""
save=1
cache=${CUZK_IMAGE_CACHE:-$repo/out/image-cache}
refresh=0
base_only=0
format=docker
while (($#)); do
  case $1 in
    --build-dir) build_dir=$(abspath "${2:?--build-dir needs a directory}"); shift 2 ;;
    --tag) tag=${2:?--tag needs NAME:TAG}; shift 2 ;;
    --out) out=$(abspath "${2:?--out needs a file}"); shift 2 ;;
    --no-save) save=0; shift ;;
    --cache) cache=$(abspath "${2:?--cache needs a directory}"); shift 2 ;;
    --refresh-base) refresh=1; shift ;;
    --base-only) base_only=1; shift ;;
    --format) format=${2:?--format needs docker or oci}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $format == docker || $format == oci ]] || die "--format must be docker or oci, not '$format'"
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot and buildah mount); run it with sudo"
[[ $(uname -m) == x86_64 ]] || die "only x86_64 is supported (the bundle is built for the build machine's arch)"
for t in cuzk-daemon cuzk-cli; do
  ((base_only)) || [[ -x $build_dir/bin/$t ]] || die "$build_dir/bin/$t not found: build it first, e.g.
  cmake -S . -B $build_dir -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=OFF && ninja -C $build_dir cuzk-daemon cuzk-cli cuzk-bench"
done
[[ -f docker/cuzk.docker.toml ]] || die "docker/cuzk.docker.toml is missing"

# ---- tools: only this script needs them -----------------------------------------
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v buildah >/dev/null || missing+=(buildah)
command -v podman >/dev/null || missing+=(podman)
if ((${#missing[@]})); then
  note "installing ${missing[*]} (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } ||
    die "could not install ${missing[*]} with apt-get"
fi
# shellcheck disable=SC2206  # a list of words on purpose
popts=(${CUZK_BUILDAH_OPTS:-})
bopts=("${popts[@]}")
# buildah and podman share /var/lib/containers/storage but each picks its own
# driver (podman remembers the first one it used; buildah takes overlay where it
# can): the image would be invisible to `podman run`. Give buildah podman's
# (podman itself must not be told: it refuses a driver its database did not record).
if [[ " ${bopts[*]} " != *" --storage-driver"* ]]; then
  driver=$(podman "${popts[@]}" info --format '{{.Store.GraphDriverName}}' 2>/dev/null) ||
    die "podman info failed: $(podman "${popts[@]}" info 2>&1 | tail -3)"
  bopts+=(--storage-driver="$driver")
fi

# ---- the Debian mirror apt uses on this machine ---------------------------------
# deb822 (.sources: URIs/Suites fields) and one-line (.list: "deb [opts] URI suite")
# entries; the first that serves $SUITE itself (not -security, -updates) wins.
find_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk -v s="$SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                                    if ($(i + 1) == s) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk -v s="$SUITE" 'BEGIN { RS = ""; FS = "\n" }
      { uris = ""; suites = ""; types = ""
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
          if ($i ~ /^Suites:/) { suites = " " $i " "; sub(/^ Suites:/, "", suites) }
          if ($i ~ /^Types:/) types = $i }
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && suites ~ ("[ \t]" s "[ \t]")) { split(uris, u, /[ \t]+/); print u[1]; exit } }' "$f"
  done
}
mirror=${CUZK_IMAGE_MIRROR:-$(find_mirror | head -1)}
[[ -n $mirror ]] || die "no apt source for $SUITE in /etc/apt/sources.list*; set CUZK_IMAGE_MIRROR (e.g. http://deb.debian.org/debian)"

# ---- base root file system: debootstrap once, then from the cache ----------------
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] && ! git -C "$repo" diff --quiet HEAD -- 2>/dev/null; then commit+=-dirty; fi
tag=${tag:-cuzk:$commit}
[[ $tag == *:* ]] || tag+=":latest"
out=${out:-$repo/out/cuzk-image-$commit.tar}

base=$cache/$SUITE-$VARIANT-amd64
stamp=$base.ok
want_stamp="suite=$SUITE variant=$VARIANT mirror=$mirror"
mkdir -p "$cache"
if ((refresh)) || [[ ! -f $stamp || $(head -1 "$stamp") != "$want_stamp" ]]; then
  note "debootstrap --variant=$VARIANT $SUITE from $mirror into $base"
  t=$(now)
  rm -rf "$base" "$stamp" "$base.tmp"
  keyring=()
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
  # Into a scratch directory: an interrupted debootstrap never passes as the cache.
  debootstrap --variant="$VARIANT" --arch=amd64 "${keyring[@]}" "$SUITE" "$base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; die "debootstrap failed (log: $cache/debootstrap.log)"; }
  # Nothing the image needs: downloaded .debs and package lists.
  rm -rf "$base.tmp"/var/cache/apt/archives/*.deb "$base.tmp"/var/lib/apt/lists/*
  mv "$base.tmp" "$base"
  # shellcheck disable=SC2016  # ${Package} is dpkg-query's field, not ours
  { echo "$want_stamp"; echo "created=$(date -u +%FT%TZ) seconds=$(since "$t")"
    echo "packages=$(chroot "$base" dpkg-query -W -f='${Package}\n' | wc -l)"; } >"$stamp"
  note "base ready in $(since "$t") s ($(sed -n 's/^packages=//p' "$stamp") packages)"
else
  note "base from the cache: $base ($(sed -n 2p "$stamp"))"
fi

if ((base_only)); then echo "$base"; exit 0; fi

# ---- the image's root file system: base + bundle + config + user -----------------
t=$(now)
rootfs=$build_dir/image-rootfs
rm -rf "$rootfs"
cp -a "$base" "$rootfs"
CUZK_BUNDLE_COMMIT=$commit scripts/bundle.sh --build-dir "$build_dir" --stage "$rootfs/opt/cuzk" --no-tar --name cuzk >&2 ||
  die "scripts/bundle.sh failed"
[[ -x $rootfs/opt/cuzk/bin/cuzk-daemon ]] || die "the bundle has no cuzk-daemon"
install -d -m 0755 "$rootfs/etc/cuzk"
install -m 0644 docker/cuzk.docker.toml "$rootfs/etc/cuzk/cuzk.toml"
chroot "$rootfs" groupadd --system --gid $UID_GID cuzk
chroot "$rootfs" useradd --system --uid $UID_GID --gid cuzk --home-dir /var/lib/cuzk --no-create-home \
  --shell /usr/sbin/nologin cuzk
install -d -m 0755 -o $UID_GID -g $UID_GID "$rootfs/var/lib/cuzk" "$rootfs/var/lib/cuzk/params" \
  "$rootfs/var/lib/cuzk/srs-cache" "$rootfs/var/lib/cuzk/cuda-cache"
install -d -m 0750 -o $UID_GID -g $UID_GID "$rootfs/run/cuzk"
# The bundle must run here with nothing from the build machine: its own check
# (glibc, every library resolvable) and every program's --help inside the rootfs.
chroot "$rootfs" /opt/cuzk/bin/cuzk-check >&2 || note "cuzk-check reported problems (a GPU-less build host is expected to lack libcuda)"
for p in cuzk-daemon cuzk-cli; do
  chroot "$rootfs" env -i PATH=/usr/bin:/bin /opt/cuzk/bin/$p --help >/dev/null 2>&1 ||
    die "/opt/cuzk/bin/$p --help fails inside the rootfs"
done
note "rootfs ready in $(since "$t") s: $(du -sh "$rootfs" | cut -f1)"

# ---- the image (buildah: from scratch, the rootfs copied in, the config) ---------
t=$(now)
ctr=$(buildah "${bopts[@]}" from scratch)
cleanup() { if [[ -n ${ctr:-} ]]; then buildah "${bopts[@]}" rm "$ctr" >/dev/null 2>&1 || true; fi; }
trap cleanup EXIT
mnt=$(buildah "${bopts[@]}" mount "$ctr")
# tar keeps owners, modes, links and device nodes as they are in the rootfs.
tar -C "$rootfs" --numeric-owner -cf - . | tar -C "$mnt" --numeric-owner -xpf -
buildah "${bopts[@]}" umount "$ctr" >/dev/null
cuda=$(sed -n 's/^cuda_architectures: //p' "$rootfs/opt/cuzk/MANIFEST" 2>/dev/null | head -1)
# HEALTHCHECK in the shell-words form: buildah 1.28 (Debian 12) splits the JSON
# form on blanks and keeps its brackets and commas, ["CMD", "[/opt/...,", ...],
# which always fails (seen as "unhealthy" in the image test).
buildah "${bopts[@]}" config \
  --label org.opencontainers.image.title=cuzk \
  --label "org.opencontainers.image.description=Groth16 GPU proving daemon for Filecoin SnapDeals (Curio cuzk.v1.ProvingEngine)" \
  --label "org.opencontainers.image.revision=$commit" \
  --label "org.opencontainers.image.base.name=debian:$SUITE-$VARIANT (debootstrap from $mirror)" \
  --label "cuzk.cuda_architectures=${cuda:-none}" \
  --env PATH=/opt/cuzk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env CUDA_CACHE_PATH=/var/lib/cuzk/cuda-cache \
  --env NVIDIA_VISIBLE_DEVICES=all \
  --env NVIDIA_DRIVER_CAPABILITIES=compute,utility \
  --volume /var/lib/cuzk/params --volume /var/lib/cuzk/srs-cache --volume /run/cuzk \
  --port 9820/tcp --port 9821/tcp \
  --workingdir /var/lib/cuzk \
  --user $UID_GID:$UID_GID \
  --stop-signal SIGTERM \
  --healthcheck 'CMD /opt/cuzk/bin/cuzk-bench status --addr 127.0.0.1:9820' \
  --healthcheck-interval 30s --healthcheck-timeout 10s --healthcheck-start-period 60s --healthcheck-retries 3 \
  --entrypoint '["/opt/cuzk/bin/cuzk-daemon", "--config", "/etc/cuzk/cuzk.toml"]' \
  --cmd '[]' \
  "$ctr" 2>&1 | { grep -v 'HEALTHCHECK is not supported for OCI image format' >&2 || true; }
# The image this tag named before (a rebuild): dropped below once nothing names it.
previous=$(buildah "${bopts[@]}" images --noheading --format '{{.ID}}' "$tag" 2>/dev/null | sed -n 1p || true)
buildah "${bopts[@]}" commit --quiet --format "$format" --rm "$ctr" "$tag" >/dev/null
ctr=""
buildah "${bopts[@]}" tag "$tag" "${tag%%:*}:latest"
id=$(buildah "${bopts[@]}" images --noheading --format '{{.ID}}' "$tag" | sed -n 1p)
size=$(buildah "${bopts[@]}" images --noheading --format '{{.Size}}' "$tag" | sed -n 1p)
if [[ -n $previous && $previous != "$id" ]] &&
   ! buildah "${bopts[@]}" images --noheading --format '{{.ID}} {{.Name}}:{{.Tag}}' |
     awk -v id="$previous" '$1 == id && $2 !~ /<none>/ { found = 1 } END { exit !found }'; then
  buildah "${bopts[@]}" rmi "$previous" >/dev/null 2>&1 || note "the previous image $previous is still in use; kept"
fi
note "image $tag ($id, $size) committed in $(since "$t") s"

if ((save)); then
  t=$(now)
  mkdir -p "$(dirname "$out")"
  rm -f "$out"
  podman "${popts[@]}" save --quiet --format "$format-archive" -o "$out" "$tag"
  note "saved $out ($(stat -c %s "$out") bytes, $(since "$t") s): podman load -i $out  (or docker load -i)"
fi
rm -rf "$rootfs"
echo "$tag"
