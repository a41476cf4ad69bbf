# Shared by the device-tool run scripts of this folder (cold_start_run.sh,
# lanes_run.sh, the A/B scripts, the small-set daemon scripts): the summary
# table, the step medians, the small sets' set-up. Sourced, not run.
# The caller sets ROW_WIDTH (the first column's width) and keeps rows=().

# row NAME RESULT TIME [NOTE]: one line of the summary table printed last.
row() { rows+=("$(printf "%-${ROW_WIDTH:-40}s %-6s %9s  %s" "$1" "$2" "$3" "${4:-}")"); }
# Seconds since a `date +%s.%N` stamp, one decimal.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
# timed NAME LIMIT_S LOG CMD...: runs CMD with a time limit, its output in
# LOG, and records a row; returns CMD's status.
timed() {
  local name=$1 limit=$2 log=$3 t0 rc
  shift 3
  t0=$(date +%s.%N)
  timeout --signal=TERM --kill-after=20 "$limit" "$@" >"$log" 2>&1
  rc=$?
  row "$name" "$([[ $rc == 0 ]] && echo ok || echo "rc=$rc")" "$(since "$t0")s" "$(basename "$log")"
  return $rc
}
# unpack_bench TARBALL DIR: extracts TARBALL (.tar.xz) into DIR and prints the
# folder in it that holds cuzk-gpu-bench (the A/B scripts' binaries).
unpack_bench() {
  mkdir -p "$2" && tar -C "$2" -xJf "$1" || return 1
  dirname "$(find "$2" -name cuzk-gpu-bench | head -n 1)"
}
# The resident and peak memory of process PID, one line.
rss() { grep -E 'VmRSS|VmHWM' "/proc/$1/status" | tr -s ' \t' ' ' | paste -sd' '; }
# step_medians < GPU_TIMING lines: per `<name>_ms=` field, its median, count,
# min and max, one line a field, sorted by name.
step_medians() {
  tr ',' '\n' | grep -E '^[a-z0-9_]+_ms=' | awk -F= '{print $1, $2}' | sort -k1,1 -k2,2g |
    awk '{v[$1]=v[$1] " " $2; n[$1]++} END {for (k in v) {split(substr(v[k],2), a, " ");
      printf "%s median %.1f (n=%d, min %.1f, max %.1f)\n", k, a[int((n[k]+1)/2)], n[k], a[1], a[n[k]]}}' |
    sort
}
# small_sets BUNDLE DIR: 2 KiB and 8 MiB test sectors (DIR/sector-SIZE) and
# their parameters made with the GPU (DIR/params); returns 1 at the first failure.
small_sets() {
  local bundle=$1 w=$2 size
  mkdir -p "$w/params"
  for size in 2KiB 8MiB; do
    timed "$size gen-vanilla" 60 "$OUT/gen-$size.log" \
      "$bundle/bin/cuzk-cli" snap gen-vanilla --sector-size "$size" --seed 1 --out "$w/sector-$size" || return 1
    timed "$size setup --gpu" 120 "$OUT/setup-$size.log" \
      "$bundle/bin/cuzk-cli" snap setup --sector-size "$size" --param-cache "$w/params" --gpu || return 1
  done
}
# witness_only_config DIR CACHE_DIR: DIR/cuzk.toml, a witness-only daemon on
# DIR/params with its images in CACHE_DIR, ports chosen by the system.
witness_only_config() {
  cat >"$1/cuzk.toml" <<EOT
[daemon]
listen = "127.0.0.1:0"
status_listen = "127.0.0.1:0"
shutdown_grace = "30s"
[pipeline]
synthesis_concurrency = 3
witness_only = true
[srs]
param_cache = "$1/params"
cache_dir = "$2"
[logging]
level = "info"
EOT
}
