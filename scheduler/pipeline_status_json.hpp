#pragma once
// The pipeline's status snapshot as JSON, shaped for the daemon's GET /status
// (the reference's fields: synthesis {max_concurrent, active}, pipelines[]
// with per-partition state and synth_ms/gpu_ms, gpu_workers[], counters,
// buffers), plus queue depths, budget bytes and the pacer's state.
#include <nlohmann/json.hpp>

#include "scheduler/pipeline.hpp"

namespace cuzk::scheduler {

nlohmann::json PipelineStatusJson(const PipelineStatus& s);

}  // namespace cuzk::scheduler
