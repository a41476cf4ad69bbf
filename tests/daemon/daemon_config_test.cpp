// Config parsing (daemon/config.hpp): the documented example loads and says
// exactly the defaults; the size and duration grammars; every kind of bad
// input is an error naming the key and the value.
#include <gtest/gtest.h>

#include "daemon/config.hpp"
#include "daemon/listen_address.hpp"

namespace cuzk::daemon {
namespace {

std::string ErrorOf(const std::string& toml) {
  try {
    ParseConfig(toml, "test.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(DaemonConfig, ExampleFileLoadsAndEqualsTheDefaults) {
  const Config c = LoadConfigFile(CUZK_SOURCE_DIR "/daemon/cuzk.example.toml");
  const Config d;
  EXPECT_EQ(c.daemon.listen, d.daemon.listen);
  EXPECT_EQ(c.daemon.status_listen, d.daemon.status_listen);
  EXPECT_EQ(c.daemon.shutdown_grace, d.daemon.shutdown_grace);
  EXPECT_EQ(c.daemon.job_retention, d.daemon.job_retention);
  EXPECT_EQ(c.daemon.max_message_bytes, d.daemon.max_message_bytes);
  EXPECT_EQ(c.daemon.rpc_memory_bytes, d.daemon.rpc_memory_bytes);
  EXPECT_EQ(c.memory.total_budget, d.memory.total_budget);
  EXPECT_EQ(c.memory.safety_margin, d.memory.safety_margin);
  EXPECT_EQ(c.memory.eviction_min_idle, d.memory.eviction_min_idle);
  EXPECT_EQ(c.memory.pinned_limit, d.memory.pinned_limit);
  EXPECT_EQ(c.gpus.devices, d.gpus.devices);
  EXPECT_EQ(c.gpus.gpu_workers_per_device, d.gpus.gpu_workers_per_device);
  EXPECT_EQ(c.gpus.gpu_threads, d.gpus.gpu_threads);
  EXPECT_EQ(c.gpus.shifted_h_bases, d.gpus.shifted_h_bases);
  EXPECT_EQ(c.gpus.early_proving, d.gpus.early_proving);
  EXPECT_EQ(c.gpus.witness_beside_h, d.gpus.witness_beside_h);
  EXPECT_EQ(c.gpus.compressed_h, d.gpus.compressed_h);
  // The timed defaults (docs/perf/gpu.md, 2026-12-05): what an operator gets with no [gpus].
  EXPECT_TRUE(d.gpus.shifted_h_bases);
  EXPECT_TRUE(d.gpus.early_proving);
  EXPECT_EQ(d.gpus.compressed_h, "always");
  EXPECT_EQ(c.scheduler.max_batch_size, d.scheduler.max_batch_size);
  EXPECT_EQ(c.scheduler.max_batch_wait_ms, d.scheduler.max_batch_wait_ms);
  EXPECT_EQ(c.synthesis.threads, d.synthesis.threads);
  EXPECT_EQ(c.daemon.rpc_threads, d.daemon.rpc_threads);
  EXPECT_EQ(c.pipeline.witness_only, d.pipeline.witness_only);
  EXPECT_EQ(c.pipeline.synthesis_concurrency, d.pipeline.synthesis_concurrency);
  EXPECT_EQ(c.pipeline.max_parallel_synthesis, d.pipeline.max_parallel_synthesis);
  EXPECT_EQ(c.pipeline.max_gpu_queue_depth, d.pipeline.max_gpu_queue_depth);
  EXPECT_EQ(c.srs.param_cache, d.srs.param_cache);
  EXPECT_EQ(c.srs.preload, d.srs.preload);
  EXPECT_EQ(c.logging.level, d.logging.level);
  EXPECT_EQ(c.logging.format, d.logging.format);
}

TEST(DaemonConfig, SizesAndDurations) {
  EXPECT_EQ(ParseSize("512MiB", "k"), 512ull << 20);
  EXPECT_EQ(ParseSize("12GiB", "k"), 12ull << 30);
  EXPECT_EQ(ParseSize("1TiB", "k"), 1ull << 40);
  EXPECT_EQ(ParseSize("4096", "k"), 4096u);
  EXPECT_EQ(ParseSize("7B", "k"), 7u);
  for (const char* bad : {"12 GiB", "12GB", "1.5GiB", "-1", "GiB", "", "12gib", "99999999999TiB"}) {
    EXPECT_THROW(ParseSize(bad, "k"), ConfigError) << bad;
  }
  EXPECT_EQ(ParseDuration("30s", "k").count(), 30'000);
  EXPECT_EQ(ParseDuration("5m", "k").count(), 300'000);
  EXPECT_EQ(ParseDuration("1500ms", "k").count(), 1500);
  EXPECT_EQ(ParseDuration("2h", "k").count(), 7'200'000);
  for (const char* bad : {"5", "5 m", "5min", "1.5s", "s", "-3s"})
    EXPECT_THROW(ParseDuration(bad, "k"), ConfigError) << bad;

  const Config c =
      ParseConfig("[memory]\ntotal_budget = \"64GiB\"\nsafety_margin = 1024\n[daemon]\nshutdown_grace = \"2m\"\n", "t");
  EXPECT_EQ(c.memory.total_budget, std::optional<uint64_t>(64ull << 30));
  EXPECT_EQ(c.memory.safety_margin, 1024u);
  EXPECT_EQ(c.daemon.shutdown_grace.count(), 120'000);
}

TEST(DaemonConfig, ErrorsNameTheKeyAndValue) {
  auto has = [](const std::string& msg, const std::string& part) { return msg.find(part) != std::string::npos; };
  std::string e = ErrorOf("[daemon]\nlisten_port = 1\n");
  EXPECT_TRUE(has(e, "unknown config key daemon.listen_port")) << e;
  e = ErrorOf("[memory]\nsafety_margin = \"12 GiB\"\n");
  EXPECT_TRUE(has(e, "memory.safety_margin") && has(e, "\"12 GiB\"")) << e;
  e = ErrorOf("[daemon]\njob_retention = \"ten minutes\"\n");
  EXPECT_TRUE(has(e, "daemon.job_retention") && has(e, "ten minutes")) << e;
  e = ErrorOf("[daemon]\nmax_message_size = \"128MiB\"\n");
  EXPECT_TRUE(has(e, "daemon.max_message_size")) << e;  // below gRPC's 256 MiB minimum
  e = ErrorOf("[pipeline]\nsynthesis_concurrency = 0\n");
  EXPECT_TRUE(has(e, "pipeline.synthesis_concurrency")) << e;
  e = ErrorOf("[pipeline]\nenabled = \"yes\"\n");
  EXPECT_TRUE(has(e, "pipeline.enabled")) << e;
  e = ErrorOf("[gpus]\ncompressed_h = \"sometimes\"\n");
  EXPECT_TRUE(has(e, "gpus.compressed_h") && has(e, "sometimes")) << e;
  e = ErrorOf("[gpus]\nearly_proving = \"yes\"\n");
  EXPECT_TRUE(has(e, "gpus.early_proving")) << e;
  EXPECT_EQ(ParseConfig("[gpus]\ncompressed_h = \"auto\"\nearly_proving = true\n", "ok").gpus.compressed_h, "auto");
  e = ErrorOf("[pipeline]\nenabled = false\n");  // the pipeline is the only proof path
  EXPECT_TRUE(has(e, "pipeline.enabled") && has(e, "only proof path")) << e;
  // Durations are added to the clock: huge ones are refused, not overflowed.
  e = ErrorOf("[daemon]\njob_retention = \"9223372036854775807ms\"\n");
  EXPECT_TRUE(has(e, "daemon.job_retention") && has(e, "maximum")) << e;
  e = ErrorOf("[daemon]\njob_retention = \"721h\"\n");
  EXPECT_TRUE(has(e, "daemon.job_retention") && has(e, "720h")) << e;
  e = ErrorOf("[daemon]\nshutdown_grace = \"25h\"\n");
  EXPECT_TRUE(has(e, "daemon.shutdown_grace") && has(e, "24h")) << e;
  e = ErrorOf("[memory]\neviction_min_idle = \"100000000h\"\n");
  EXPECT_TRUE(has(e, "memory.eviction_min_idle")) << e;
  EXPECT_EQ(ParseConfig("[daemon]\njob_retention = \"720h\"\nshutdown_grace = \"24h\"\n", "ok").daemon.job_retention,
            std::chrono::hours(720));
  // gRPC's memory quota: at least one largest message.
  EXPECT_EQ(ParseConfig("[daemon]\nrpc_memory = \"1GiB\"\n", "ok").daemon.rpc_memory_bytes, 1ull << 30);
  e = ErrorOf("[daemon]\nrpc_memory = \"300MiB\"\n");  // below the default max_message_size (512 MiB)
  EXPECT_TRUE(has(e, "daemon.rpc_memory") && has(e, "daemon.max_message_size")) << e;
  EXPECT_EQ(
      ParseConfig("[daemon]\nrpc_memory = \"300MiB\"\nmax_message_size = \"256MiB\"\n", "ok").daemon.rpc_memory_bytes,
      300ull << 20);
  // A max_message_size above what gRPC takes (an int) is clamped: rpc_memory need only cover the clamp.
  EXPECT_EQ(ParseConfig("[daemon]\nmax_message_size = \"4GiB\"\nrpc_memory = \"3GiB\"\n", "ok").daemon.rpc_memory_bytes,
            3ull << 30);
  e = ErrorOf("[daemon]\nrpc_threads = 1\n");
  EXPECT_TRUE(has(e, "daemon.rpc_threads")) << e;
  e = ErrorOf("[logging]\nformat = \"xml\"\n");
  EXPECT_TRUE(has(e, "logging.format") && has(e, "xml")) << e;
  e = ErrorOf("[gpus]\ndevices = [\"0\"]\n");
  EXPECT_TRUE(has(e, "gpus.devices")) << e;
  e = ErrorOf("[srs]\npreload = \"snap-2k\"\n");
  EXPECT_TRUE(has(e, "srs.preload")) << e;
  e = ErrorOf("[storage]\n");
  EXPECT_TRUE(has(e, "[storage]")) << e;
  e = ErrorOf("daemon = 1\n");
  EXPECT_TRUE(has(e, "daemon")) << e;
  e = ErrorOf("[daemon\n");
  EXPECT_TRUE(has(e, "test.toml:1")) << e;
}

TEST(DaemonConfig, ListenAddresses) {
  auto u = ParseListenAddress("unix:///run/curio/cuzk.sock", "k");
  EXPECT_TRUE(u.is_unix);
  EXPECT_EQ(u.path, "/run/curio/cuzk.sock");
  EXPECT_EQ(u.GrpcTarget(), "unix:/run/curio/cuzk.sock");
  auto t = ParseListenAddress("0.0.0.0:9820", "k");
  EXPECT_FALSE(t.is_unix);
  EXPECT_EQ(t.host, "0.0.0.0");
  EXPECT_EQ(t.port, 9820);
  EXPECT_EQ(ParseListenAddress("[::1]:9820", "k").GrpcTarget(), "[::1]:9820");
  for (const char* bad : {"9820", ":9820", "host:", "host:70000", "unix:", "host:12x"}) {
    EXPECT_THROW(ParseListenAddress(bad, "k"), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace cuzk::daemon
