#!/usr/bin/env bash
# Checks that the C++ and CUDA sources follow .clang-format (Google style, 120 columns): every
# tracked .cpp/.hpp/.cu/.cuh/.h file, formatted in memory and compared. Exits non-zero naming the
# files that differ; `scripts/format_check.sh --fix` rewrites them in place instead.
#   scripts/format_check.sh [--fix]
#   CUZK_CLANG_FORMAT=clang-format-14 scripts/format_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CUZK_CLANG_FORMAT:-$(command -v clang-format || command -v clang-format-14 || true)}
if [[ -z "$fmt" ]]; then
  echo "format_check: clang-format not found (Debian package clang-format; scripts/setup.sh installs it)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h' | grep -v node_modules)
if [[ ${1:-} == --fix ]]; then
  "$fmt" -i --style=file "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  echo "format_check: ${#bad[@]} file(s) differ from .clang-format (scripts/format_check.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files follow .clang-format"
