// The (bucket key, base) pair sort of the GPU G1 MSM: CUB's radix sort, in
// its own translation unit because CUB is slow to compile.
#include <cub/device/device_radix_sort.cuh>

#include <limits>
#include <stdexcept>

#include "cuda/msm/g1_msm_kernels.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::g1msm {
namespace {

int CheckedCount(size_t m) {
  if (m > size_t(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("G1 MSM sort: more than 2^31 - 1 entries (n times windows); use wider windows");
  }
  return int(m);
}

}  // namespace

size_t SortTempBytes(size_t m, int end_bit) {
  cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), vals(nullptr, nullptr);
  size_t bytes = 0;
  CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, CheckedCount(m), 0, end_bit));
  return bytes;
}

int SortPairs(void* temp, size_t temp_bytes, uint32_t* const keys[2], uint32_t* const vals[2], size_t m, int end_bit,
              cudaStream_t stream) {
  cub::DoubleBuffer<uint32_t> k(keys[0], keys[1]), v(vals[0], vals[1]);
  CUZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, CheckedCount(m), 0, end_bit, stream));
  if (k.selector != v.selector) throw std::logic_error("G1 MSM sort: keys and values ended in different buffers");
  return k.selector;
}

}  // namespace cuzk::cuda::g1msm
