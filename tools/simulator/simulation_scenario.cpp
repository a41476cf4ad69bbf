// Scenario JSON -> SimScenario, with an error naming the field for anything
// missing, mistyped, out of range or unknown (a typo must not silently fall
// back to a default).
#include <cmath>
#include <set>

#include "tools/simulator/simulator.hpp"

namespace cuzk::scheduler {
namespace {

using nlohmann::json;

[[noreturn]] void Fail(const std::string& path, const std::string& what) { throw ScenarioError(path + ": " + what); }

void OnlyKeys(const json& j, const std::string& path, std::initializer_list<const char*> keys) {
  if (!j.is_object()) Fail(path, "must be an object");
  std::set<std::string> allowed(keys.begin(), keys.end());
  for (auto& [k, v] : j.items())
    if (!allowed.count(k)) Fail(path.empty() ? k : path + "." + k, "unknown key");
}

std::string Join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

double Number(const json& j, const std::string& path, double lo, double hi) {
  if (!j.is_number()) Fail(path, "must be a number");
  const double v = j.get<double>();
  if (!std::isfinite(v) || v < lo || v > hi)
    Fail(path, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + j.dump());
  return v;
}

uint64_t Unsigned(const json& j, const std::string& path, uint64_t lo, uint64_t hi) {
  if (!j.is_number_integer() || (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() < 0))
    Fail(path, "must be a non-negative integer, got " + j.dump());
  const uint64_t v = j.get<uint64_t>();
  if (v < lo || v > hi)
    Fail(path, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + j.dump());
  return v;
}

TimeRange Time(const json& j, const std::string& path) {
  TimeRange t;
  if (j.is_number()) {
    t.min_s = t.max_s = Number(j, path, 0, 1e6);
    return t;
  }
  if (!j.is_object()) Fail(path, "must be a number of seconds or {\"min\": s, \"max\": s}");
  OnlyKeys(j, path, {"min", "max"});
  if (!j.contains("min") || !j.contains("max")) Fail(path, "needs both min and max");
  t.min_s = Number(j["min"], path + ".min", 0, 1e6);
  t.max_s = Number(j["max"], path + ".max", 0, 1e6);
  if (t.min_s > t.max_s) Fail(path, "min is greater than max");
  return t;
}

const json& Required(const json& j, const std::string& path, const char* key) {
  if (!j.contains(key)) Fail(Join(path, key), "is required");
  return j[key];
}

SimJobSpec ParseJob(const json& j, const std::string& path) {
  OnlyKeys(j, path, {"count", "partitions", "priority", "arrival_s", "interval_s", "fail_partitions"});
  SimJobSpec s;
  if (j.contains("count")) s.count = uint32_t(Unsigned(j["count"], path + ".count", 1, 100000));
  s.partitions = uint32_t(Unsigned(Required(j, path, "partitions"), path + ".partitions", 1, 100000));
  if (j.contains("priority")) {
    if (!j["priority"].is_string()) Fail(path + ".priority", "must be CRITICAL, HIGH, NORMAL or LOW");
    auto p = ParsePriority(j["priority"].get<std::string>());
    if (!p) Fail(path + ".priority", "must be CRITICAL, HIGH, NORMAL or LOW, got " + j["priority"].dump());
    s.priority = *p;
  }
  if (j.contains("arrival_s")) s.arrival_s = Number(j["arrival_s"], path + ".arrival_s", 0, 1e7);
  if (j.contains("interval_s")) s.interval_s = Number(j["interval_s"], path + ".interval_s", 0, 1e7);
  if (j.contains("fail_partitions")) {
    const json& f = j["fail_partitions"];
    if (!f.is_array()) Fail(path + ".fail_partitions", "must be an array of partition indices");
    for (size_t i = 0; i < f.size(); ++i)
      s.fail_partitions.push_back(
          uint32_t(Unsigned(f[i], path + ".fail_partitions[" + std::to_string(i) + "]", 0, s.partitions - 1)));
  }
  return s;
}

PacerConfig ParsePacer(const json& j) {
  OnlyKeys(j, "pacer",
           {"target", "kp", "ki", "integral_min", "integral_max", "rate_mult_min", "rate_mult_max", "interval_min_s",
            "interval_max_s", "gpu_time_alpha", "waiting_tau_s", "bootstrap_spacing_s", "initial_gpu_time_s",
            "fill_when_starved", "predict_synthesis", "synth_time_alpha"});
  PacerConfig c;
  auto num = [&](const char* key, double& field) {
    if (j.contains(key)) field = Number(j[key], std::string("pacer.") + key, -1e9, 1e9);
  };
  num("target", c.target);
  num("kp", c.kp);
  num("ki", c.ki);
  num("integral_min", c.integral_min);
  num("integral_max", c.integral_max);
  num("rate_mult_min", c.rate_mult_min);
  num("rate_mult_max", c.rate_mult_max);
  num("interval_min_s", c.interval_min_s);
  num("interval_max_s", c.interval_max_s);
  num("gpu_time_alpha", c.gpu_time_alpha);
  num("waiting_tau_s", c.waiting_tau_s);
  num("bootstrap_spacing_s", c.bootstrap_spacing_s);
  num("initial_gpu_time_s", c.initial_gpu_time_s);
  num("synth_time_alpha", c.synth_time_alpha);
  auto flag = [&](const char* key, bool& field) {
    if (!j.contains(key)) return;
    if (!j[key].is_boolean()) Fail(std::string("pacer.") + key, "must be true or false");
    field = j[key].get<bool>();
  };
  flag("fill_when_starved", c.fill_when_starved);
  flag("predict_synthesis", c.predict_synthesis);
  try {
    c.Validate();
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(e.what());
  }
  return c;
}

}  // namespace

SimScenario ParseScenario(const json& j) {
  OnlyKeys(j, "", {"seed", "jobs", "synthesis", "gpu", "finalize", "memory", "pacer", "max_time_s"});
  SimScenario s;
  if (j.contains("seed")) s.seed = Unsigned(j["seed"], "seed", 0, ~uint64_t(0));
  const json& jobs = Required(j, "", "jobs");
  if (!jobs.is_array() || jobs.empty()) Fail("jobs", "must be a non-empty array");
  for (size_t i = 0; i < jobs.size(); ++i) s.jobs.push_back(ParseJob(jobs[i], "jobs[" + std::to_string(i) + "]"));

  const json& syn = Required(j, "", "synthesis");
  OnlyKeys(syn, "synthesis", {"workers", "time_s", "max_run_ahead"});
  s.synthesis_workers = uint32_t(Unsigned(Required(syn, "synthesis", "workers"), "synthesis.workers", 1, 100000));
  s.synthesis_time = Time(Required(syn, "synthesis", "time_s"), "synthesis.time_s");
  if (syn.contains("max_run_ahead"))
    s.max_run_ahead = uint32_t(Unsigned(syn["max_run_ahead"], "synthesis.max_run_ahead", 0, 1000000));

  const json& gpu = Required(j, "", "gpu");
  OnlyKeys(gpu, "gpu", {"devices", "workers_per_device", "time_s"});
  if (gpu.contains("devices")) s.gpu_devices = uint32_t(Unsigned(gpu["devices"], "gpu.devices", 1, 1024));
  if (gpu.contains("workers_per_device"))
    s.gpu_workers_per_device = uint32_t(Unsigned(gpu["workers_per_device"], "gpu.workers_per_device", 1, 64));
  s.gpu_time = Time(Required(gpu, "gpu", "time_s"), "gpu.time_s");
  if (s.gpu_time.max_s <= 0) Fail("gpu.time_s", "must be > 0");

  if (j.contains("finalize")) {
    OnlyKeys(j["finalize"], "finalize", {"time_s"});
    s.finalize_time = Time(Required(j["finalize"], "finalize", "time_s"), "finalize.time_s");
  }
  if (j.contains("memory")) {
    const json& m = j["memory"];
    OnlyKeys(m, "memory", {"budget_bytes", "bytes_per_partition", "abc_bytes"});
    s.budget_bytes = Unsigned(Required(m, "memory", "budget_bytes"), "memory.budget_bytes", 1, uint64_t(1) << 62);
    s.bytes_per_partition =
        Unsigned(Required(m, "memory", "bytes_per_partition"), "memory.bytes_per_partition", 0, uint64_t(1) << 62);
    if (m.contains("abc_bytes")) s.abc_bytes = Unsigned(m["abc_bytes"], "memory.abc_bytes", 0, uint64_t(1) << 62);
    if (s.abc_bytes > s.bytes_per_partition) Fail("memory.abc_bytes", "must not exceed memory.bytes_per_partition");
  }
  if (j.contains("pacer")) s.pacer = ParsePacer(j["pacer"]);
  if (j.contains("max_time_s")) s.max_time_s = Number(j["max_time_s"], "max_time_s", 1, 1e9);
  return s;
}

}  // namespace cuzk::scheduler
