#include "daemon/gpu_info.hpp"

#include <algorithm>

#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace cuzk::daemon {

std::vector<GpuInfo> QueryGpus(const std::vector<int64_t>& devices) {
  std::vector<GpuInfo> out;
#ifdef CUZK_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: report none
    return out;
  }
  for (int d = 0; d < count; ++d) {
    if (!devices.empty() && std::find(devices.begin(), devices.end(), int64_t(d)) == devices.end()) continue;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    GpuInfo g;
    g.ordinal = uint32_t(d);
    g.name = prop.name;
    g.vram_total_bytes = prop.totalGlobalMem;
    int previous = 0;
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(d) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      g.vram_free_bytes = free_bytes;
    }
    cudaSetDevice(previous);
    out.push_back(std::move(g));
  }
#else
  (void)devices;
#endif
  return out;
}

}  // namespace cuzk::daemon
