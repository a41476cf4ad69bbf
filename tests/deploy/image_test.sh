#!/usr/bin/env bash
# ctest image_run (label `image`, not in the default CI run: it builds the image
# and proves on the CPU, minutes on one core). Builds the container image from
# this build tree with scripts/image.sh, starts the image's daemon with podman
# on the CPU backend, and proves a 2 KiB SnapDeals job through it from outside
# the container:
#   2 KiB fixture (tests/daemon/make_fixture.sh; reused when present)
#   -> scripts/image.sh --build-dir BUILD --no-save (the debootstrap base is cached)
#   -> podman run: the image's own ENTRYPOINT and config, its gRPC port 9820 and
#      HTTP port 9821 published on 127.0.0.1, the parameters bind-mounted
#      read-only at /var/lib/cuzk/params; or, with CUZK_IMAGE_TEST_SOCKET=1, no
#      network at all (--network=none) and gRPC on a unix socket in a
#      bind-mounted /run/cuzk (the form a Curio on the same host uses)
#   -> from the host: cuzk-bench status, GET /status (TCP mode), cuzk-bench
#      single (SubmitProof + AwaitProof), cuzk-cli snap verify on the proof
#      (and on a corrupted copy, which must be refused); no "SRS_CACHE off" in
#      the daemon's log (srs.cache_dir is a volume of its own, writable by uid
#      10001, while the parameters are read-only); podman stop -> exit 0.
#
#   image_test.sh BUILD_DIR
# Environment:
#   CUZK_PODMAN_OPTS      global podman options, e.g. in a sandbox whose cgroups
#                         crun refuses: "--runtime runc --cgroup-manager=cgroupfs
#                         --events-backend=file"
#   CUZK_PODMAN_RUN_OPTS  extra `podman run` options, e.g. where raising rlimits
#                         is not permitted: "--ulimit nofile=20000:20000
#                         --ulimit nproc=32768:32768"
#   CUZK_BUILDAH_OPTS     passed on to scripts/image.sh (storage options)
#   CUZK_IMAGE_TEST_SOCKET=1  the unix-socket mode above
# Skipped (77) when not root: building the rootfs needs debootstrap and chroot.
set -euo pipefail
build=$(realpath "${1:?usage: image_test.sh BUILD_DIR}")
repo=$(realpath "$(dirname "$0")/../..")
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (debootstrap, chroot, podman)"; exit 77; }
for t in cuzk-daemon cuzk-cli cuzk-bench; do
  [[ -x $build/bin/$t ]] || fail "$build/bin/$t is not built (ninja -C $build cuzk-daemon cuzk-cli cuzk-bench)"
done
# shellcheck disable=SC2206  # lists of words on purpose
popts=(${CUZK_PODMAN_OPTS:-})
# shellcheck disable=SC2206
run_opts=(${CUZK_PODMAN_RUN_OPTS:-})

fixture=$build/tests/daemon/fixture
step "2 KiB fixture in $fixture"
"$repo/tests/daemon/make_fixture.sh" "$build/bin/cuzk-cli" "$fixture"
params=$fixture/params
sector=$fixture/sector-2k

step "image (scripts/image.sh)"
tag=cuzk-ctest:$$
t0=$SECONDS
"$repo/scripts/image.sh" --build-dir "$build" --tag "$tag" --no-save
echo "image built in $((SECONDS - t0)) s"
podman "${popts[@]}" image inspect --format 'user={{.Config.User}} entrypoint={{.Config.Entrypoint}} ports={{.Config.ExposedPorts}}' "$tag"
[[ $(podman "${popts[@]}" image inspect --format '{{.Config.User}}' "$tag") == 10001:10001 ]] ||
  fail "the image does not run as the non-root user 10001:10001"

run=$(mktemp -d /tmp/cuzk-image-test-XXXXXX)
ctr=cuzk-image-test-$$
cleanup() {
  # -v: the image's VOLUMEs (params, srs-cache, /run/cuzk) got anonymous volumes.
  podman "${popts[@]}" rm -f -v -t 5 "$ctr" >/dev/null 2>&1 || true
  podman "${popts[@]}" rmi "$tag" "${tag%%:*}:latest" >/dev/null 2>&1 || true
  rm -rf "$run"
}
trap cleanup EXIT
socket_mode=${CUZK_IMAGE_TEST_SOCKET:-0}
if [[ $socket_mode == 1 ]]; then
  # The socket directory belongs to the image's user, as /run/cuzk in the image
  # does; the daemon makes the socket 0660, and root outside may connect.
  install -d -m 0750 -o 10001 -g 10001 "$run/sock"
  chmod 0755 "$run"
  addr=unix://$run/sock/cuzk.sock
  net_opts=(--network=none -v "$run/sock:/run/cuzk")
  daemon_args=(--listen unix:///run/cuzk/cuzk.sock)
  what="no network, gRPC on a bind-mounted unix socket"
else
  # Free host ports for the two published ones (the kernel picks, we release).
  read -r grpc_port status_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  addr=127.0.0.1:$grpc_port
  net_opts=(-p "127.0.0.1:$grpc_port:9820" -p "127.0.0.1:$status_port:9821")
  daemon_args=()
  what="the image's config as shipped, ports 9820 -> $grpc_port and 9821 -> $status_port published on 127.0.0.1"
fi
# The parameters must be readable by uid 10001 through the read-only mount.
find "$params" -maxdepth 0 -perm -o=rx | grep -q . || fail "$params is not world-readable (uid 10001 reads it)"

step "podman run (CPU backend; $what; parameters read-only)"
podman "${popts[@]}" run -d --name "$ctr" "${net_opts[@]}" -v "$params:/var/lib/cuzk/params:ro" "${run_opts[@]}" \
  "$tag" "${daemon_args[@]}" >/dev/null
ready=""
# READY is printed once both listeners are bound; then the client must get through.
for _ in $(seq 600); do
  ready=$(podman "${popts[@]}" logs "$ctr" 2>/dev/null | grep -m1 '^READY ' || true)
  [[ -n $ready ]] && "$build/bin/cuzk-bench" status --addr "$addr" >/dev/null 2>&1 && break
  state=$(podman "${popts[@]}" inspect --format '{{.State.Status}}' "$ctr")
  [[ $state == running ]] || { podman "${popts[@]}" logs "$ctr" | tail -20; fail "the container is $state before READY"; }
  sleep 0.2
done
[[ -n $ready ]] || { podman "${popts[@]}" logs "$ctr" | tail -20; fail "no READY line within 120 s"; }
echo "$ready"
health=$(podman "${popts[@]}" image inspect --format '{{json .Config.Healthcheck.Test}}' "$tag")
echo "HEALTHCHECK $health"
if [[ $socket_mode != 1 ]]; then   # (it asks 127.0.0.1:9820, where the socket mode does not listen)
  podman "${popts[@]}" healthcheck run "$ctr" || fail "the image's HEALTHCHECK ($health) says the daemon is not healthy"
  echo "podman healthcheck run: healthy"
fi
user=$(podman "${popts[@]}" exec "$ctr" id -u)
echo "daemon's user inside the container: uid $user"
[[ $user == 10001 ]] || fail "the daemon runs as uid $user, not 10001"

step "from outside the container: cuzk-bench status --addr $addr"
"$build/bin/cuzk-bench" status --addr "$addr"
if [[ $socket_mode != 1 ]]; then
  step "from outside the container: GET /status on 127.0.0.1:$status_port"
  exec 3<>"/dev/tcp/127.0.0.1/$status_port"
  printf 'GET /status HTTP/1.0\r\nHost: x\r\n\r\n' >&3
  resp=$(timeout 10 cat <&3)
  exec 3<&-
  head -1 <<<"$resp"
  grep -q '^HTTP/1\.[01] 200' <<<"$resp" || fail "GET /status through the published port: $(head -3 <<<"$resp")"
fi

step "from outside the container: prove the 2 KiB job (cuzk-bench single)"
t0=$SECONDS
"$build/bin/cuzk-bench" single --addr "$addr" --dir "$sector" --out "$run/proof.bin" --request-id "image-test-$$"
echo "job through the container: $((SECONDS - t0)) s"

step "verify the proof (cuzk-cli snap verify)"
"$build/bin/cuzk-cli" snap verify --dir "$sector" --param-cache "$params" --proof "$run/proof.bin"
# The check above can fail: a proof with one byte changed must be refused.
cp "$run/proof.bin" "$run/bad.bin"
printf '\x55' | dd of="$run/bad.bin" bs=1 seek=100 conv=notrunc status=none
cmp -s "$run/proof.bin" "$run/bad.bin" && printf '\xaa' | dd of="$run/bad.bin" bs=1 seek=100 conv=notrunc status=none
if "$build/bin/cuzk-cli" snap verify --dir "$sector" --param-cache "$params" --proof "$run/bad.bin" >"$run/bad.out" 2>&1; then
  cat "$run/bad.out"; fail "a corrupted proof verified"
fi
echo "a corrupted copy is refused: $(tail -1 "$run/bad.out")"

# The image's srs.cache_dir is its own volume, writable by uid 10001: with the
# parameters mounted read-only the circuit and key images must still be possible.
if podman "${popts[@]}" logs "$ctr" 2>&1 | grep 'SRS_CACHE off'; then
  fail "the SRS image cache is off in the container (srs.cache_dir not writable by uid 10001?)"
fi
podman "${popts[@]}" logs "$ctr" 2>&1 | grep -E 'SRS_LOAD|SRS_CACHE' || true

step "podman stop (SIGTERM) -> exit code 0"
podman "${popts[@]}" stop -t 45 "$ctr" >/dev/null
code=$(podman "${popts[@]}" inspect --format '{{.State.ExitCode}}' "$ctr")
podman "${popts[@]}" logs "$ctr" 2>&1 | grep -E 'pipeline runner|completed|shut' | head -5 || true
[[ $code == 0 ]] || { podman "${popts[@]}" logs "$ctr" | tail -20; fail "the daemon exited with $code after SIGTERM"; }
echo "exit code 0"
echo "image test: ok"
