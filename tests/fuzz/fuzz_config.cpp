// libFuzzer target: the daemon's TOML config (daemon/config.hpp, ParseConfig:
// what LoadConfigFile runs over the file's text), then ProverOptionsFor, which
// turns it into the prover's options. Input: the file's text.
//
// Oracles: only ConfigError is thrown (a toml++ parse error, a range error or a
// bad_alloc escaping would be a crash); an accepted config keeps the limits the
// parser promises (max_message_bytes >= 256 MiB, the duration maxima of
// daemon/cuzk.example.toml).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "daemon/config.hpp"
#include "prover/prover.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace std::chrono_literals;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  cuzk::daemon::Config config;
  try {
    config = cuzk::daemon::ParseConfig(text, "fuzz.toml");
    (void)cuzk::daemon::ProverOptionsFor(config);
  } catch (const cuzk::daemon::ConfigError&) {
    return 0;
  }
  if (config.daemon.max_message_bytes < (256ull << 20)) std::abort();
  if (config.daemon.shutdown_grace < 0ms || config.daemon.shutdown_grace > 24h) std::abort();
  if (config.daemon.job_retention < 0ms || config.daemon.job_retention > 720h) std::abort();
  if (config.memory.eviction_min_idle < 0ms || config.memory.eviction_min_idle > 720h) std::abort();
  return 0;
}
