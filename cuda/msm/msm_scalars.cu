// The scalar side of the GPU MSM, the same for G1 and G2: signed digits and
// the (bucket key, base) pair sort (CUB's radix sort; in its own translation
// unit because CUB is slow to compile).
#include <cub/device/device_radix_sort.cuh>

#include <limits>
#include <stdexcept>

#include "cuda/msm/msm_kernels.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::pippenger {
namespace {

constexpr unsigned kDigitsBlock = 256;

__global__ void __launch_bounds__(kDigitsBlock) DigitsKernel(size_t n, Layout layout, const Fr* scalars,
                                                             const uint64_t* words, const uint32_t* ranks,
                                                             uint32_t* keys, uint32_t* vals) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) DigitsStep(i, n, layout, scalars, words, ranks, keys, vals);
}

int CheckedCount(size_t m) {
  if (m > size_t(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("GPU MSM sort: more than 2^31 - 1 entries (n times windows); use wider windows");
  }
  return int(m);
}

}  // namespace

void LaunchDigits(size_t n, const Layout& layout, const Fr* scalars, const uint64_t* words, const uint32_t* ranks,
                  uint32_t* keys, uint32_t* vals, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = unsigned((n + kDigitsBlock - 1) / kDigitsBlock);
  DigitsKernel<<<blocks, kDigitsBlock, 0, stream>>>(n, layout, scalars, words, ranks, keys, vals);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

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
  if (k.selector != v.selector) throw std::logic_error("GPU MSM sort: keys and values ended in different buffers");
  return k.selector;
}

}  // namespace cuzk::cuda::pippenger
