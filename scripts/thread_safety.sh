#!/usr/bin/env bash
# Checks the lock annotations (absl::Mutex, ABSL_GUARDED_BY, ABSL_EXCLUSIVE_LOCKS_REQUIRED) of the
# threaded layers with clang's thread-safety analysis: every .cpp in scheduler/, memory/, prover/ and
# daemon/, compiled -fsyntax-only with the include paths and defines of a configured build directory's
# compile_commands.json (so generated headers, e.g. the protobuf ones, must exist: run it after the
# build). Exits non-zero on any warning.
#   scripts/thread_safety.sh [BUILD_DIR]      (default: build)
#   CUZK_CLANGXX=clang++-14 scripts/thread_safety.sh build-a
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db="$build/compile_commands.json"
clangxx=${CUZK_CLANGXX:-$(command -v clang++ || command -v clang++-14 || true)}
if [[ -z "$clangxx" ]]; then
  echo "thread_safety: clang++ not found (Debian package clang; scripts/setup.sh installs it)" >&2
  exit 2
fi
if [[ ! -f "$db" ]]; then
  echo "thread_safety: $db not found (configure the build first)" >&2
  exit 2
fi
# One line per file: the file, then the flags that matter for parsing it (-I, -isystem, -D, -std).
# The build's compiler may be GCC: its optimisation and warning flags are left out.
python3 - "$db" "$PWD" > "$build/thread_safety.args" <<'EOF'
import json, os, shlex, sys
db, root = sys.argv[1], sys.argv[2]
folders = ("scheduler/", "memory/", "prover/", "daemon/")
seen = set()
for e in json.load(open(db)):
    f = os.path.relpath(os.path.join(e["directory"], e["file"]), root)
    if not f.endswith(".cpp") or not f.startswith(folders) or f in seen:
        continue
    seen.add(f)
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    keep, i = [], 0
    while i < len(args):
        a = args[i]
        if a in ("-I", "-isystem", "-D", "-include"):
            keep += [a, os.path.join(e["directory"], args[i + 1]) if a != "-D" else args[i + 1]]
            i += 2
            continue
        if a.startswith("-I"):
            keep.append("-I" + os.path.join(e["directory"], a[2:]))
        elif a.startswith(("-D", "-std=", "-isystem")):
            keep.append(a)
        i += 1
    print(shlex.join([f] + keep))
EOF
count=$(wc -l < "$build/thread_safety.args")
if [[ "$count" -eq 0 ]]; then
  echo "thread_safety: no scheduler/memory/prover/daemon sources in $db" >&2
  exit 2
fi
log="$build/thread_safety.log"
# -Wthread-safety-beta adds checks that are still settling (e.g. ABSL_ACQUIRED_AFTER orders).
# shellcheck disable=SC2016
xargs -P "$(nproc)" -d '\n' -I{} sh -c 'eval "set -- $1"; f=$1; shift; "$0" -fsyntax-only -Wthread-safety -Wthread-safety-beta -Werror=thread-safety "$@" "$f" 2>&1 || true' "$clangxx" {} < "$build/thread_safety.args" > "$log"
if grep -qE "(warning|error):" "$log"; then
  cat "$log"
  echo "thread_safety: $(grep -cE '(warning|error):' "$log") diagnostics in $count files ($log)" >&2
  exit 1
fi
echo "thread_safety: $count files clean ($clangxx -Wthread-safety -Wthread-safety-beta)"
