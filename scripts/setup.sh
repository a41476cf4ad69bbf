#!/usr/bin/env bash
# Installs everything cuzk needs to build and test, from Debian packages and npm.
# Idempotent and non-interactive: safe to run on every `make`-like entry point.
#   scripts/setup.sh            -> Debian packages + npm test oracles
#   CUZK_SKIP_APT=1 scripts/setup.sh  -> only npm (e.g. in a prepared image)
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git clang clang-format
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  libabsl-dev libspdlog-dev libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libgmp-dev
  libxxhash-dev
  libsqlite3-dev
  python3 python3-grpcio python3-protobuf
  libcpp-httplib-dev libssl-dev openssl
)
# Node.js runs the npm test oracles; take Debian's only where no node/npm is present
# (a machine with a newer Node.js from elsewhere keeps it: Debian's npm conflicts with it).
# CUZK_SKIP_NPM=1 (image builds: no test oracles) needs neither.
if [[ "${CUZK_SKIP_NPM:-0}" != 1 ]]; then
  command -v node >/dev/null 2>&1 || DEB_PACKAGES+=(nodejs)
  command -v npm >/dev/null 2>&1 || DEB_PACKAGES+=(npm)
fi

missing_packages() {
  local p
  for p in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

if [[ "${CUZK_SKIP_APT:-0}" != 1 ]]; then
  mapfile -t todo < <(missing_packages)
  if ((${#todo[@]})); then
    SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
    echo "setup: installing ${todo[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${todo[@]}"
  fi
fi

# npm test oracles (independent implementations): versions pinned in tests/oracle/package.json.
if [[ "${CUZK_SKIP_NPM:-0}" != 1 ]]; then
  if [[ ! -d tests/oracle/node_modules ]] || [[ tests/oracle/package.json -nt tests/oracle/node_modules ]]; then
    echo "setup: installing npm test oracles"
    (cd tests/oracle && npm install --no-audit --no-fund --loglevel=error && touch node_modules)
  fi
fi
echo "setup: done"
