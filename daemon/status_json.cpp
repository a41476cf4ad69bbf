// GET /status: the daemon's state as one JSON document (cuzk's fields where
// they exist: uptime, memory, synthesis, pipelines with per-partition
// states and times, gpu_workers, counters).
#include "daemon/status_json.hpp"

#include <nlohmann/json.hpp>

#include "scheduler/pipeline_status_json.hpp"

namespace cuzk::daemon {

using namespace prover;

std::string StatusJson(const Prover& prover, unsigned engine_threads) {
  using nlohmann::json;
  const MemoryInfo mem = prover.Memory();
  const RunnerCounts rc = prover.runner().Counts();
  const TrackerCounts tc = prover.tracker().Counts();
  json pipelines = json::array();
  for (const JobView& v : prover.tracker().Snapshot()) {
    json parts = json::array();
    for (size_t k = 0; k < v.partitions.size(); ++k) {
      const PartitionStatus& p = v.partitions[k];
      parts.push_back({{"partition", k},
                       {"state", scheduler::PartitionStageName(p.stage)},
                       {"srs_load_ms", uint64_t(p.srs_load_ms)},
                       {"synth_ms", uint64_t(p.synth_ms)},
                       {"gpu_ms", uint64_t(p.gpu_ms)},
                       {"finalize_ms", uint64_t(p.finalize_ms)},
                       {"verify_ms", uint64_t(p.verify_ms)}});
    }
    pipelines.push_back({{"job_id", v.id},
                         {"proof_kind", JobKindName(v.kind)},
                         {"priority", v.priority},
                         {"state", JobStateName(v.state)},
                         {"stopping", v.stopping},
                         {"age_ms", uint64_t(v.age_ms)},
                         {"error", v.error},
                         {"queue_wait_ms", uint64_t(v.timings.queue_wait_ms)},
                         {"srs_load_ms", uint64_t(v.timings.srs_load_ms)},
                         {"synth_ms", uint64_t(v.timings.synthesis_ms)},
                         {"gpu_ms", uint64_t(v.timings.gpu_compute_ms)},
                         {"finalize_ms", uint64_t(v.timings.finalize_ms)},
                         {"total_ms", uint64_t(v.timings.total_ms)},
                         {"partitions", parts}});
  }
  json gpus = json::array();
  for (const GpuInfo& g : prover.Gpus()) {
    gpus.push_back({{"ordinal", g.ordinal},
                    {"name", g.name},
                    {"vram_total_bytes", g.vram_total_bytes},
                    {"vram_free_bytes", g.vram_free_bytes},
                    {"bases_resident_bytes", g.bases_bytes},
                    {"circuits_resident_bytes", g.circuit_bytes},
                    {"shifted_h_bytes", g.shifted_h_bytes},
                    {"keys_landing", g.keys_landing},
                    {"deferred_proofs", g.deferred_proofs}});
  }
  json srs = json::array();
  for (const SrsInfo& s : prover.srs().List()) {
    static const char* kTiers[] = {"hot", "warm", "cold"};
    srs.push_back({{"circuit_id", s.circuit_id},
                   {"tier", kTiers[int(s.tier)]},
                   {"size_bytes", s.size_bytes},
                   {"ref_count", s.ref_count},
                   {"loading", s.loading},
                   {"params_path", s.params_path}});
  }
  json queues = json::object();
  for (const auto& [kind, c] : rc.by_kind)
    queues[JobKindName(kind)] = {{"pending", c.pending}, {"in_progress", c.in_progress}};
  json doc = {
      {"uptime_seconds", prover.UptimeSeconds()},
      {"shutting_down", prover.shutting_down()},
      {"memory",
       {{"total", mem.total_bytes},
        {"available", mem.available_bytes},
        {"used", mem.total_bytes - std::min(mem.total_bytes, mem.available_bytes)},
        {"budget", mem.budget_bytes},
        {"srs_resident", mem.srs_resident_bytes},
        {"pinned", mem.pinned_bytes},
        {"pinned_limit", mem.pinned_limit_bytes}}},
      {"synthesis", {{"max_concurrent", rc.workers}, {"active", rc.busy_workers}, {"threads", engine_threads}}},
      {"gpu_workers", prover.GpuWorkers()},
      {"gpus", gpus},
      {"srs", srs},
      {"queues", queues},
      {"jobs", pipelines},       // every job the tracker holds (active and retained)
      {"pipelines", pipelines},  // the same, under cuzk's name
      {"counters",
       {{"submitted", tc.submitted},
        {"completed", tc.completed},
        {"failed", tc.failed},
        {"cancelled", tc.cancelled},
        {"deduplicated", tc.deduplicated},
        {"pruned", tc.pruned},
        {"active", tc.active},
        {"retained", tc.retained},
        {"awaiting", tc.awaiting}}},
  };
  // The scheduler pipeline's own view: queues, GPU workers, reserved/peak bytes, pacer.
  doc["scheduler"] = scheduler::PipelineStatusJson(prover.runner().PipelineStatus());
  return doc.dump(2) + "\n";
}

}  // namespace cuzk::daemon
