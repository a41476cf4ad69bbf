#pragma once
// The GPUs the CUDA runtime sees (only in a CUDA build, CUZK_HAVE_CUDA;
// otherwise, and on a machine without a GPU, an empty list). Queried through
// the runtime API, not an nvidia-smi subprocess per call as cuzk does.
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::daemon {

struct GpuInfo {
  uint32_t ordinal = 0;
  std::string name;
  uint64_t vram_total_bytes = 0, vram_free_bytes = 0;
};

// devices: the configured ordinals ([] = all).
std::vector<GpuInfo> QueryGpus(const std::vector<int64_t>& devices);

}  // namespace cuzk::daemon
