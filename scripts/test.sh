#!/usr/bin/env bash
# Sets up a fresh machine (Debian packages, npm oracles), builds everything and
# runs the whole test suite. This is the README's test command; .ci/run calls it.
#   CUZK_BUILD_DIR   build directory (default: build)
#   CUZK_CTEST_ARGS  extra ctest arguments (e.g. "-L unit"; default "-LE image": the
#                    container image test, tests/deploy/image_test.sh, needs root,
#                    podman and minutes, and runs only when asked: "-L image")
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=${CUZK_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
# 2 jobs: the CI machine has 2 vCPUs; more only thrashes memory.
cmake --build "$build" -j "${CUZK_BUILD_JOBS:-2}"
scripts/format_check.sh             # the sources follow .clang-format
scripts/thread_safety.sh "$build"   # clang -Wthread-safety over scheduler/, memory/, prover/, daemon/
cd "$build"
# GPU tests skip themselves (with a message) where there is no GPU.
ctest --output-on-failure -j 2 --timeout 1200 ${CUZK_CTEST_ARGS:--LE image}
