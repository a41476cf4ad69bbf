#include "scheduler/pipeline_status_json.hpp"

namespace cuzk::scheduler {

nlohmann::json PipelineStatusJson(const PipelineStatus& s) {
  using nlohmann::json;
  json j;
  j["synthesis"] = {{"max_concurrent", s.synthesis_threads}, {"active", s.synthesizing}, {"queued", s.synthesis_queue}};
  j["gpu_queue"] = s.gpu_queue;
  j["finalizer_queue"] = s.finalizer_queue;
  json& pipelines = j["pipelines"] = json::array();
  for (const JobStatus& job : s.jobs) {
    json parts = json::array();
    for (size_t i = 0; i < job.partitions.size(); ++i) {
      const PartitionStatus& p = job.partitions[i];
      parts.push_back({{"index", i},
                       {"state", std::string(PartitionStageName(p.stage))},
                       {"synth_ms", p.synth_ms},
                       {"gpu_ms", p.gpu_ms},
                       {"worker", p.worker}});
    }
    pipelines.push_back({{"job_id", job.id},
                         {"priority", std::string(PriorityName(job.priority))},
                         {"age_ms", job.age_ms},
                         {"partitions", std::move(parts)}});
  }
  json& workers = j["gpu_workers"] = json::array();
  for (const GpuWorkerStatus& w : s.gpu_workers)
    workers.push_back({{"worker", w.worker},
                       {"device", w.device},
                       {"busy", w.busy},
                       {"job_id", w.job_id},
                       {"partition", w.partition}});
  j["memory"] = {{"budget_bytes", s.budget_bytes},
                 {"reserved_bytes", s.reserved_bytes},
                 {"peak_reserved_bytes", s.peak_reserved_bytes}};
  if (s.has_pinned_pool)
    j["buffers"] = {{"pinned_idle_bytes", s.pinned.idle_bytes},
                    {"pinned_leased_bytes", s.pinned.leased_bytes},
                    {"pinned_idle_buffers", s.pinned.idle_buffers},
                    {"pinned_leased_buffers", s.pinned.leased_buffers},
                    {"allocations", s.pinned.allocations},
                    {"reuses", s.pinned.reuses},
                    {"frees", s.pinned.frees},
                    {"page_locked_allocations", s.pinned.page_locked_allocations},
                    {"page_locked_bytes", s.pinned.page_locked_bytes},
                    {"over_ceiling_allocations", s.pinned.over_ceiling_allocations}};
  const PacerState& p = s.pacer;
  j["pacer"] = {{"bootstrap", p.bootstrap},
                {"calibrated", p.calibrated},
                {"rebootstraps", p.rebootstraps},
                {"dispatched", p.dispatched},
                {"completions", p.completions},
                {"in_flight", p.in_flight},
                {"waiting", p.waiting},
                {"ema_waiting", p.ema_waiting},
                {"predicted", p.predicted},
                {"integral", p.integral},
                {"rate_mult", p.rate_mult},
                {"interval_ms", p.interval_s * 1e3},
                {"gpu_time_ms", p.gpu_time_s * 1e3},
                {"synth_time_ms", p.synth_time_s * 1e3}};
  j["counters"] = {
      {"jobs_completed", s.jobs_completed}, {"jobs_failed", s.jobs_failed}, {"jobs_cancelled", s.jobs_cancelled}};
  return j;
}

}  // namespace cuzk::scheduler
