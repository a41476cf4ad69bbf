#include "prover/devices.hpp"

#include <algorithm>

#ifdef CUZK_HAVE_CUDA
#include "cuda/runtime/device_info.hpp"
#endif

namespace cuzk::prover {

std::vector<GpuInfo> QueryGpus(const std::vector<int>& devices) {
  std::vector<GpuInfo> out;
#ifdef CUZK_HAVE_CUDA
  for (const cuda::DeviceInfo& d : cuda::ListDevices()) {
    if (!devices.empty() && std::find(devices.begin(), devices.end(), d.ordinal) == devices.end()) continue;
    out.push_back({.ordinal = uint32_t(d.ordinal),
                   .name = d.name,
                   .vram_total_bytes = d.total_memory_bytes,
                   .vram_free_bytes = d.free_memory_bytes});
  }
#else
  (void)devices;
#endif
  return out;
}

}  // namespace cuzk::prover
