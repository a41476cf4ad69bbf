#!/usr/bin/env bash
# End-to-end check of an unpacked bundle on this host (bundled as bin/cuzk-smoke):
# the host check, a test sector and local parameters, the daemon started from
# the bundle with a config in a work directory, GetStatus and GetMetrics through
# the bundled client, GET /status and /metrics, one SnapDeals job through the
# client, the proof verified, SIGTERM -> exit 0. Nothing is installed; only
# the work directory is written.
#
#   bin/cuzk-smoke [--sector-size 2KiB] [--work DIR] [--keep] [--prove] [--setup-gpu]
#                  [--jobs N] [--concurrency C] [--synthesis-concurrency S] [--pinned-limit SIZE]
#                  [--budget SIZE]
#                  [-- DAEMON ARGS...]
#
#   --sector-size S  gen-vanilla / setup size (default 2KiB; 8MiB has 4 partitions
#                    of 2^24 constraints: a real GPU load, but its local setup takes
#                    minutes and ~4.3 GB of parameters)
#   --work DIR       work directory (default: a new /tmp/cuzk-smoke.XXXXXX); an
#                    existing sector/ and params/ there are reused
#   --keep           keep the work directory (default: kept only on failure)
#   --prove          one Prove call (what Curio does) instead of Submit + Await
#   --setup-gpu      make the local parameters on the GPU (cuzk-cli snap setup --gpu)
#   --jobs N         after the first job, N more through `cuzk-bench batch` (a load:
#                    GPU busy per worker and per device from the TIMELINE lines,
#                    `cuzk-bench timeline`, SVG in the work directory); default 0
#   --concurrency C  Prove calls in flight during --jobs (default N)
#   --synthesis-concurrency S  the daemon's [pipeline] synthesis_concurrency
#                    (partitions synthesized at once; default 1 as in the daemon)
#   --pinned-limit SIZE  the daemon's [memory] pinned_limit (default 16GiB as in the
#                    daemon; a 512 MiB partition's a/b/c + z buffer is 8.2 GB)
#   --budget SIZE    the daemon's [memory] total_budget (default "auto"; the
#                    loaded parameter sets are charged to it)
#   --witness-only B the daemon's [pipeline] witness_only (true, the default:
#                    a/b/c evaluated on the GPU; false: on the host)
#   --shifted-h-bases B  the daemon's [gpus] shifted_h_bases (left to the
#                    daemon's default, true, unless given: the H bases' window
#                    shifts on each GPU with room; false: never)
#   --gpu-workers N  the daemon's [gpus] gpu_workers_per_device (lanes a GPU
#                    runs at once; left to the daemon's default, 2, unless given)
#   DAEMON ARGS      appended to cuzk-daemon's command line (e.g. --log-level debug)
#
# Exit 0 when every step passed. Output: each step's command and result, then
# the daemon's log lines that mention the GPU or the job's timings.
set -uo pipefail
self=$(readlink -f -- "$0" 2>/dev/null) || self=$0
root=$(cd -- "$(dirname -- "$self")/.." && pwd -P) || exit 2
bin=$root/bin
size=2KiB
work=""
keep=0
prove=()
setup_gpu=()
jobs=0
concurrency=0
synth=1
pinned_limit=16GiB
budget=auto
witness_only=true
shifted_h=""
gpu_workers=""
daemon_args=()
while (($#)); do
  case $1 in
    --sector-size) size=${2:?}; shift 2 ;;
    --work) work=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --prove) prove=(--prove); shift ;;
    --setup-gpu) setup_gpu=(--gpu); shift ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --concurrency) concurrency=${2:?}; shift 2 ;;
    --synthesis-concurrency) synth=${2:?}; shift 2 ;;
    --pinned-limit) pinned_limit=${2:?}; shift 2 ;;
    --budget) budget=${2:?}; shift 2 ;;
    --witness-only) witness_only=${2:?}; shift 2 ;;
    --shifted-h-bases) shifted_h=${2:?}; shift 2 ;;
    --gpu-workers) gpu_workers=${2:?}; shift 2 ;;
    --) shift; daemon_args=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "cuzk-smoke: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for t in cuzk-daemon cuzk-cli cuzk-bench; do
  [[ -x $bin/$t ]] || { echo "cuzk-smoke: this bundle has no $t" >&2; exit 2; }
done
if [[ -z $work ]]; then work=$(mktemp -d /tmp/cuzk-smoke.XXXXXX); else mkdir -p "$work"; fi
work=$(cd "$work" && pwd -P)
results=()
failed=0
dpid=""
step() { echo; echo "== $*"; }
record() {  # record NAME RC
  if (($2 == 0)); then results+=("PASS  $1"); else results+=("FAIL  $1 (exit $2)"); failed=1; fi
}
run() {  # run NAME CMD...: echo, time and record a command
  local name=$1 rc t0 t1
  shift
  echo "\$ $*"
  t0=$(date +%s.%N)
  "$@"
  rc=$?
  t1=$(date +%s.%N)
  echo "($name: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s)"
  record "$name" $rc
  return $rc
}
metrics() {  # metrics NAME: GetMetrics through the client, printed without HELP/TYPE and buckets
  echo "\$ $bin/cuzk-bench metrics --addr $grpc"
  "$bin/cuzk-bench" metrics --addr "$grpc" >"$work/metrics.txt"
  local rc=$?
  grep -v -E '^#|_bucket' "$work/metrics.txt"
  echo "($1: exit $rc; $(grep -c . "$work/metrics.txt") lines, full text in $work/metrics.txt)"
  record "$1" $rc
}
http_get() {  # http_get HOST:PORT PATH (bash /dev/tcp: no curl on a bare host)
  local hp=$1
  exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$2" "${hp%:*}" >&3
  timeout 20 cat <&3
  local rc=$?
  exec 3<&-
  return $rc
}
finish() {
  if [[ -n $dpid ]] && kill -0 "$dpid" 2>/dev/null; then kill -KILL "$dpid" 2>/dev/null; fi
  step "summary ($(uname -n), bundle $(sed -n 's/^name: //p' "$root/MANIFEST" 2>/dev/null))"
  printf '%s\n' "${results[@]}"
  if ((failed)); then echo "cuzk-smoke: FAILED (work directory kept: $work)"; exit 1; fi
  echo "cuzk-smoke: all steps passed"
  if ((keep)); then echo "work directory: $work"; else rm -rf "$work"; fi
  exit 0
}
trap finish EXIT

step "host"
uname -srm
(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
else
  echo "(no nvidia-smi)"
fi
sed -n 's/^\(commit\|built\|glibc_min\|cuda_architectures\|tools\): /  \1: /p' "$root/MANIFEST"
run "host check" "$bin/cuzk-check"

step "test sector and local parameters ($size)"
if [[ -f $work/sector/commitments.json ]]; then
  echo "(reusing $work/sector)"
else
  run "gen-vanilla" "$bin/cuzk-cli" snap gen-vanilla --sector-size "$size" --seed 1 --out "$work/sector" || exit 1
fi
if compgen -G "$work/params/*.params" >/dev/null; then
  echo "(reusing $work/params)"
else
  run "local setup" "$bin/cuzk-cli" snap setup --sector-size "$size" --param-cache "$work/params" "${setup_gpu[@]}" || exit 1
fi
ls -l "$work/params"

step "daemon"
cat >"$work/cuzk.toml" <<EOF
[daemon]
listen = "127.0.0.1:0"
status_listen = "127.0.0.1:0"
shutdown_grace = "30s"
[memory]
pinned_limit = "$pinned_limit"
total_budget = "$budget"
[gpus]
${shifted_h:+shifted_h_bases = $shifted_h}
${gpu_workers:+gpu_workers_per_device = $gpu_workers}
[pipeline]
synthesis_concurrency = $synth
witness_only = $witness_only
[srs]
param_cache = "$work/params"
[logging]
level = "info"
EOF
cat "$work/cuzk.toml"
echo "\$ $bin/cuzk-daemon --config $work/cuzk.toml ${daemon_args[*]} >$work/daemon.out 2>$work/daemon.log &"
: >"$work/daemon.out"  # empty now: a reused work directory holds the last run's READY line
"$bin/cuzk-daemon" --config "$work/cuzk.toml" "${daemon_args[@]}" >"$work/daemon.out" 2>"$work/daemon.log" &
dpid=$!
for _ in $(seq 600); do
  grep -q '^READY ' "$work/daemon.out" 2>/dev/null && break
  kill -0 "$dpid" 2>/dev/null || break
  sleep 0.2
done
ready=$(grep '^READY ' "$work/daemon.out" 2>/dev/null)
if [[ -z $ready ]]; then
  echo "no READY line within 120 s:"; tail -20 "$work/daemon.log"
  record "daemon start" 1
  exit 1
fi
record "daemon start" 0
echo "$ready"
sed 's/^/  log: /' "$work/daemon.log"
grpc=$(sed -n 's/.* grpc=\([^ ]*\).*/\1/p' <<<"$ready")
status=$(sed -n 's/.* status=\([^ ]*\).*/\1/p' <<<"$ready")

step "GetStatus and GetMetrics through the client"
run "GetStatus" "$bin/cuzk-bench" status --addr "$grpc"
run "GetStatus --json" "$bin/cuzk-bench" status --addr "$grpc" --json
metrics "GetMetrics"

step "HTTP status endpoint ($status)"
for path in /status /metrics; do
  resp=$(http_get "$status" "$path")
  grep -v -E '^#|_bucket' <<<"$resp" | head -50
  grep -q '^HTTP/1\.[01] 200' <<<"$resp"
  record "GET $path" $?
done

step "SnapDeals job through the client"
run "SnapDeals proof" "$bin/cuzk-bench" single --addr "$grpc" --dir "$work/sector" --out "$work/proof.bin" "${prove[@]}"
cp "$work/daemon.log" "$work/daemon.log.first"  # the log up to the first job's end
if [[ -s $work/proof.bin ]]; then
  run "proof verifies" "$bin/cuzk-cli" snap verify --dir "$work/sector" --param-cache "$work/params" --proof "$work/proof.bin"
fi
metrics "GetMetrics after the job"

# A CUDA bundle on a host with an NVIDIA device must prove on it: the pipeline
# runner names its GPUs at start (CudaBackend is constructed per device, and
# that throws when the device cannot be used), and without this check a
# CPU-backend fallback would pass every step above.
manifest_arch=$(sed -n 's/^cuda_architectures: //p' "$root/MANIFEST" 2>/dev/null)
if [[ -n $manifest_arch && $manifest_arch != none ]] && compgen -G '/dev/nvidia[0-9]*' >/dev/null; then
  step "the daemon proves on the GPU"
  grep -E 'pipeline runner: .* GPU\(s\) x' "$work/daemon.log"
  record "daemon uses the GPU" $?
fi

if ((jobs > 0)); then
  step "load: $jobs more jobs, ${concurrency:-$jobs} in flight"
  ((concurrency > 0)) || concurrency=$jobs
  run "batch of $jobs" "$bin/cuzk-bench" batch --addr "$grpc" --dir "$work/sector" --count "$jobs" \
    --concurrency "$concurrency"
  run "GetStatus after the load" "$bin/cuzk-bench" status --addr "$grpc"
  # The load's TIMELINE lines only: the first job's (parameter load, cold
  # caches) would dilute the busy figures.
  awk -v n="$(grep -c 'TIMELINE,' "$work/daemon.log.first" 2>/dev/null || echo 0)" \
    '/TIMELINE,/ { if (++k <= n) next } { print }' "$work/daemon.log" >"$work/load.log"
  run "timeline of the load" "$bin/cuzk-bench" timeline --log "$work/load.log" --svg "$work/timeline.svg"
  grep -E 'job .*: total' "$work/daemon.log" | tail -n "$jobs"
fi

step "shutdown"
kill -TERM "$dpid"
wait "$dpid"
rc=$?
dpid=""
echo "cuzk-daemon exit code after SIGTERM: $rc"
record "SIGTERM -> exit 0" $rc

step "daemon log (GPU, timings, warnings)"
grep -E -i 'gpu|cuda|TIMELINE|_TIMING|warn|error' "$work/daemon.log" | head -80
echo "(full log: $work/daemon.log, $(wc -l <"$work/daemon.log") lines)"
