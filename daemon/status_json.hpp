#pragma once
// GET /status: the prover's state as one JSON document (cuzk's fields where
// they exist: uptime, memory, synthesis, pipelines with per-partition states
// and times, gpu_workers, counters; plus the scheduler pipeline's own view).
#include <string>

#include "prover/prover.hpp"

namespace cuzk::daemon {

// engine_threads: [synthesis] threads, echoed as synthesis.threads.
std::string StatusJson(const prover::Prover& prover, unsigned engine_threads);

}  // namespace cuzk::daemon
