// Strict TOML config: every section and key is listed once below with the
// function that reads it; anything else in the file is an error.
#include "daemon/config.hpp"

#include "prover/prover.hpp"

#include <toml++/toml.h>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace cuzk::daemon {
namespace {

std::string Quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

// Digits then a unit from `units` (name -> multiplier); no sign, no space, no fraction.
std::optional<uint64_t> ParseWithUnit(std::string_view text,
                                      const std::vector<std::pair<std::string_view, uint64_t>>& units) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc() || end != text.data() + digits) return std::nullopt;
  std::string_view unit = text.substr(digits);
  for (const auto& [name, mult] : units) {
    if (unit == name) {
      if (mult && value > UINT64_MAX / mult) return std::nullopt;
      return value * mult;
    }
  }
  return std::nullopt;
}

std::string NodeText(const toml::node& node) {
  std::ostringstream out;
  if (auto s = node.as_string()) {
    out << Quote(s->get());
  } else {
    node.visit([&out](const auto& v) { out << v; });
  }
  return out.str();
}

[[noreturn]] void Bad(std::string_view key, const toml::node& node, std::string_view expected) {
  throw ConfigError("config key " + std::string(key) + " = " + NodeText(node) + ": expected " + std::string(expected));
}

// The readers: each checks the TOML type and the value, naming the key.
using Reader = std::function<void(const toml::node&, const std::string& key)>;

Reader String(std::string& out) {
  return [&out](const toml::node& n, const std::string& key) {
    if (!n.is_string()) Bad(key, n, "a string");
    out = n.as_string()->get();
  };
}

Reader OneOf(std::string& out, std::vector<std::string> allowed) {
  return [&out, allowed](const toml::node& n, const std::string& key) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + Quote(a);
    if (!n.is_string()) Bad(key, n, "one of " + list);
    const std::string v = n.as_string()->get();
    for (const auto& a : allowed) {
      if (v == a) {
        out = v;
        return;
      }
    }
    Bad(key, n, "one of " + list);
  };
}

Reader Bool(bool& out) {
  return [&out](const toml::node& n, const std::string& key) {
    if (!n.is_boolean()) Bad(key, n, "true or false");
    out = n.as_boolean()->get();
  };
}

// A key cuzk's files carry whose only value here is `true` (the feature is always on).
Reader AlwaysTrue() {
  return [](const toml::node& n, const std::string& key) {
    if (!n.is_boolean()) Bad(key, n, "true or false");
    if (!n.as_boolean()->get())
      throw ConfigError("config key " + key +
                        " = false: the pipeline is this daemon's only proof path (remove the key)");
  };
}

template <class T>
Reader Integer(T& out, uint64_t min = 0) {
  return [&out, min](const toml::node& n, const std::string& key) {
    const uint64_t max = std::numeric_limits<T>::max();
    if (!n.is_integer() || n.as_integer()->get() < int64_t(min) || uint64_t(n.as_integer()->get()) > max) {
      Bad(key, n, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
    }
    out = T(n.as_integer()->get());
  };
}

Reader Size(uint64_t& out, uint64_t min = 0) {
  return [&out, min](const toml::node& n, const std::string& key) {
    uint64_t v = 0;
    if (n.is_integer() && n.as_integer()->get() >= 0) {
      v = uint64_t(n.as_integer()->get());
    } else if (n.is_string()) {
      v = ParseSize(n.as_string()->get(), key);
    } else {
      Bad(key, n, "a size such as \"512MiB\" or \"12GiB\" (B, KiB, MiB, GiB, TiB; no space) or an integer of bytes");
    }
    if (v < min) Bad(key, n, "at least " + std::to_string(min) + " bytes");
    out = v;
  };
}

Reader SizeOrAuto(std::optional<uint64_t>& out) {
  return [&out](const toml::node& n, const std::string& key) {
    if (n.is_string() && n.as_string()->get() == "auto") {
      out.reset();
      return;
    }
    uint64_t v = 0;
    Size(v)(n, key);
    out = v;
  };
}

// `max`: durations are added to steady_clock::now() (deadlines, expiries);
// a value near INT64_MAX ms would overflow there and act at once.
Reader Duration(std::chrono::milliseconds& out, std::chrono::hours max) {
  return [&out, max](const toml::node& n, const std::string& key) {
    if (!n.is_string()) Bad(key, n, "a duration such as \"30s\", \"5m\", \"1500ms\", \"1h\"");
    const std::chrono::milliseconds d = ParseDuration(n.as_string()->get(), key);
    if (d > max) {
      throw ConfigError("config key " + key + " = " + Quote(n.as_string()->get()) + ": more than the maximum of " +
                        std::to_string(max.count()) + "h");
    }
    out = d;
  };
}

Reader StringList(std::vector<std::string>& out) {
  return [&out](const toml::node& n, const std::string& key) {
    if (!n.is_array()) Bad(key, n, "an array of strings");
    out.clear();
    for (const auto& e : *n.as_array()) {
      if (!e.is_string()) Bad(key, n, "an array of strings");
      out.push_back(e.as_string()->get());
    }
  };
}

Reader IntList(std::vector<int64_t>& out) {
  return [&out](const toml::node& n, const std::string& key) {
    if (!n.is_array()) Bad(key, n, "an array of device ordinals");
    out.clear();
    for (const auto& e : *n.as_array()) {
      if (!e.is_integer() || e.as_integer()->get() < 0) Bad(key, n, "an array of device ordinals (integers >= 0)");
      out.push_back(e.as_integer()->get());
    }
  };
}

// An octal file mode as a string ("0660", "0600"). Bits for others are
// refused: every local user could then submit, cancel or evict.
Reader SocketMode(uint32_t& out) {
  return [&out](const toml::node& n, const std::string& key) {
    const char* expected = "an octal mode string such as \"0660\" or \"0600\" (no bits for others)";
    if (!n.is_string()) Bad(key, n, expected);
    const std::string& text = n.as_string()->get();
    uint32_t mode = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mode, 8);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || mode > 0777 || (mode & 0007)) {
      Bad(key, n, expected);
    }
    out = mode;
  };
}

// Proof kind names as the proto spells them ([fallback] kinds).
Reader KindList(std::vector<std::string>& out) {
  return [&out](const toml::node& n, const std::string& key) {
    static const std::vector<std::string> kKinds = {"POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION",
                                                    "WINNING_POST", "GENERIC_R1CS"};
    std::string list;
    for (const auto& k : kKinds) list += (list.empty() ? "" : ", ") + Quote(k);
    StringList(out)(n, key);
    for (const std::string& kind : out)
      if (std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end()) Bad(key, n, "an array of " + list);
  };
}

using Schema = std::map<std::string, std::map<std::string, Reader>>;

Schema MakeSchema(Config& c) {
  return {
      {"daemon",
       {{"listen", String(c.daemon.listen)},
        {"status_listen", String(c.daemon.status_listen)},
        {"shutdown_grace", Duration(c.daemon.shutdown_grace, std::chrono::hours(24))},
        {"job_retention", Duration(c.daemon.job_retention, std::chrono::hours(30 * 24))},
        {"max_message_size", Size(c.daemon.max_message_bytes, 256ull << 20)},
        {"rpc_memory", Size(c.daemon.rpc_memory_bytes, 256ull << 20)},
        {"rpc_threads", Integer(c.daemon.rpc_threads, 2)},
        {"socket_mode", SocketMode(c.daemon.socket_mode)},
        {"socket_group", String(c.daemon.socket_group)},
        {"state_dir", String(c.daemon.state_dir)}}},
      {"tls",
       {{"cert_file", String(c.tls.cert_file)},
        {"key_file", String(c.tls.key_file)},
        {"client_ca_file", String(c.tls.client_ca_file)}}},
      {"auth", {{"token_file", String(c.auth.token_file)}}},
      {"requests",
       {{"max_vanilla_proofs", Integer(c.requests.max_vanilla_proofs, 1)},
        {"max_vanilla_proof_size", Size(c.requests.max_vanilla_proof_bytes, 1)}}},
      {"memory",
       {{"total_budget", SizeOrAuto(c.memory.total_budget)},
        {"safety_margin", Size(c.memory.safety_margin)},
        {"eviction_min_idle", Duration(c.memory.eviction_min_idle, std::chrono::hours(30 * 24))},
        {"pinned_limit", Size(c.memory.pinned_limit)}}},
      {"gpus",
       {{"devices", IntList(c.gpus.devices)},
        {"gpu_workers_per_device", Integer(c.gpus.gpu_workers_per_device, 1)},
        {"gpu_threads", Integer(c.gpus.gpu_threads)},
        {"shifted_h_bases", Bool(c.gpus.shifted_h_bases)},
        {"early_proving", Bool(c.gpus.early_proving)},
        {"witness_beside_h", Bool(c.gpus.witness_beside_h)},
        {"compressed_h", OneOf(c.gpus.compressed_h, {"auto", "never", "always"})}}},
      {"scheduler",
       {{"max_batch_size", Integer(c.scheduler.max_batch_size, 1)},
        {"max_batch_wait_ms", Integer(c.scheduler.max_batch_wait_ms)}}},
      {"synthesis", {{"threads", Integer(c.synthesis.threads)}}},
      {"pipeline",
       {{"enabled", AlwaysTrue()},
        {"synthesis_concurrency", Integer(c.pipeline.synthesis_concurrency, 1)},
        {"max_parallel_synthesis", Integer(c.pipeline.max_parallel_synthesis, 1)},
        {"max_gpu_queue_depth", Integer(c.pipeline.max_gpu_queue_depth)},
        {"witness_only", Bool(c.pipeline.witness_only)}}},
      {"fallback", {{"address", String(c.fallback.address)}, {"kinds", KindList(c.fallback.kinds)}}},
      {"srs",
       {{"param_cache", String(c.srs.param_cache)},
        {"preload", StringList(c.srs.preload)},
        {"cache_dir", String(c.srs.cache_dir)},
        {"key_to_gpu", Bool(c.srs.key_to_gpu)}}},
      {"logging",
       {{"level", OneOf(c.logging.level, {"trace", "debug", "info", "warn", "error", "critical", "off"})},
        {"format", OneOf(c.logging.format, {"text", "json"})}}},
      {"testing",
       {{"synthesis_delay", Duration(c.testing.synthesis_delay, std::chrono::hours(1))},
        {"gpu_delay", Duration(c.testing.gpu_delay, std::chrono::hours(1))}}},
  };
}

}  // namespace

uint64_t ParseSize(std::string_view text, std::string_view key) {
  static const std::vector<std::pair<std::string_view, uint64_t>> kUnits = {
      {"", 1}, {"B", 1}, {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40}};
  auto v = ParseWithUnit(text, kUnits);
  if (!v) {
    throw ConfigError("config key " + std::string(key) + " = " + Quote(text) +
                      ": not a size (digits then B, KiB, MiB, GiB or TiB, no space: \"512MiB\", \"12GiB\")");
  }
  return *v;
}

std::chrono::milliseconds ParseDuration(std::string_view text, std::string_view key) {
  static const std::vector<std::pair<std::string_view, uint64_t>> kUnits = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  auto v = ParseWithUnit(text, kUnits);
  if (!v || *v > uint64_t(INT64_MAX)) {
    throw ConfigError("config key " + std::string(key) + " = " + Quote(text) +
                      ": not a duration (digits then ms, s, m or h: \"1500ms\", \"30s\", \"5m\")");
  }
  return std::chrono::milliseconds(int64_t(*v));
}

Config ParseConfig(std::string_view toml_text, std::string_view source) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    std::ostringstream out;
    out << source << ":" << e.source().begin.line << ":" << e.source().begin.column << ": " << e.description();
    throw ConfigError(out.str());
  }
  Config c;
  Schema schema = MakeSchema(c);
  for (const auto& [section_key, section_node] : root) {
    const std::string section(section_key.str());
    auto s = schema.find(section);
    if (s == schema.end()) {
      throw ConfigError(std::string(source) + ": unknown config section [" + section + "] (known: daemon, memory, " +
                        "gpus, scheduler, synthesis, pipeline, srs, logging, tls, auth, requests, fallback)");
    }
    if (!section_node.is_table()) throw ConfigError(std::string(source) + ": " + section + " must be a [table]");
    for (const auto& [key_key, node] : *section_node.as_table()) {
      const std::string key = section + "." + std::string(key_key.str());
      auto r = s->second.find(std::string(key_key.str()));
      if (r == s->second.end()) throw ConfigError(std::string(source) + ": unknown config key " + key);
      r->second(node, key);
    }
  }
  if (c.daemon.listen.empty()) throw ConfigError("config key daemon.listen is empty");
  // gRPC takes the message limit as an int: what is above INT32_MAX is clamped (daemon/main.cpp).
  if (c.daemon.rpc_memory_bytes < std::min<uint64_t>(c.daemon.max_message_bytes, INT32_MAX)) {
    throw ConfigError("config key daemon.rpc_memory (" + std::to_string(c.daemon.rpc_memory_bytes) +
                      " bytes) is below daemon.max_message_size (" + std::to_string(c.daemon.max_message_bytes) +
                      " bytes): a message of the largest size could never be received");
  }
  return c;
}

prover::ProverOptions ProverOptionsFor(const Config& c) {
  prover::ProverOptions o;
  o.param_cache = c.srs.param_cache;
  o.srs_image_cache =
      c.srs.cache_dir == "auto" ? (std::filesystem::path(c.srs.param_cache) / "cuzk-cache").string() : c.srs.cache_dir;
  o.srs_key_to_devices = c.srs.key_to_gpu;
  o.job_retention = c.daemon.job_retention;
  o.state_dir = c.daemon.state_dir;  // the job journal; "" = off
  o.eviction_min_idle = c.memory.eviction_min_idle;
  prover::RunnerOptions& r = o.runner;
  r.synthesis_threads = std::max(1u, c.pipeline.synthesis_concurrency);  // partitions synthesized at once
  r.engine_threads = c.synthesis.threads;                                // threads of one engine call
  for (int64_t d : c.gpus.devices) r.gpu_devices.push_back(int(d));      // [] = all present
  r.workers_per_device = c.gpus.gpu_workers_per_device;
  r.shifted_h_bases = c.gpus.shifted_h_bases;
  r.early_proving = c.gpus.early_proving;
  r.witness_beside_h = c.gpus.witness_beside_h;
  r.compressed_h = c.gpus.compressed_h;
  r.budget_bytes = c.memory.total_budget;  // nullopt = auto
  r.safety_margin = c.memory.safety_margin;
  r.pacer_target = double(c.pipeline.max_gpu_queue_depth);  // 0 = the pacer's default (8)
  r.max_run_ahead = c.pipeline.max_parallel_synthesis;      // hard ceiling beside the pacer
  r.pinned_limit = c.memory.pinned_limit;                   // page-locked a/b/c bytes at most
  r.synthesis_delay = c.testing.synthesis_delay;
  r.gpu_delay = c.testing.gpu_delay;
  r.witness_only = c.pipeline.witness_only;  // GPU workers: a/b/c on the GPU
  return o;
}

Config LoadConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read config file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return ParseConfig(text.str(), path);
}

}  // namespace cuzk::daemon
