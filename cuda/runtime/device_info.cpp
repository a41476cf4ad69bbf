#include "cuda/runtime/device_info.hpp"

#include <cuda_runtime_api.h>

#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {

std::vector<DeviceInfo> ListDevices(std::string* why_empty) {
  int count = 0;
  cudaError_t st = cudaGetDeviceCount(&count);
  if (st != cudaSuccess || count == 0) {
    if (why_empty) *why_empty = st != cudaSuccess ? cudaGetErrorString(st) : "no CUDA device";
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return {};
  }
  std::vector<DeviceInfo> out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    CUZK_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    DeviceInfo info;
    info.ordinal = d;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.total_memory_bytes = prop.totalGlobalMem;
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_CHECK(cudaSetDevice(d));
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    info.free_memory_bytes = free_b;
    out.push_back(info);
  }
  return out;
}

}  // namespace cuzk::cuda
