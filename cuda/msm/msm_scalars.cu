// The scalar side of the GPU MSM, the same for G1 and G2: signed digits and
// the (bucket key, base) pair sort (CUB's radix sort; in its own translation
// unit because CUB is slow to compile).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <limits>
#include <stdexcept>

#include "cuda/msm/msm_kernels.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::pippenger {
namespace {

constexpr unsigned kDigitsBlock = 256;

unsigned Blocks(size_t n) { return unsigned((n + kDigitsBlock - 1) / kDigitsBlock); }

__global__ void __launch_bounds__(kDigitsBlock)
    ClassifyKernel(size_t n, const Fr* scalars, const uint64_t* words, Fr* canon, uint32_t* flags, uint32_t* ones) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) ClassifyStep(i, scalars, words, canon, flags, ones);
}

__global__ void __launch_bounds__(kDigitsBlock)
    OnesIndexKernel(size_t n, const uint32_t* ones, const uint32_t* offsets, const uint64_t* words,
                    const uint32_t* ranks, uint32_t* indices) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) OnesIndexStep(i, ones, offsets, words, ranks, indices);
}

__global__ void __launch_bounds__(kDigitsBlock)
    CountDigitsKernel(size_t n, Layout layout, const Fr* canon, uint32_t* counts) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) CountDigitsStep(i, layout, canon, counts);
}

__global__ void __launch_bounds__(kDigitsBlock)
    DigitsKernel(size_t n, Layout layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                 const uint32_t* offsets, uint32_t* keys, uint32_t* vals) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) DigitsStep(i, layout, canon, words, ranks, offsets, keys, vals);
}

__global__ void __launch_bounds__(kDigitsBlock)
    WindowDigitsKernel(size_t n, Layout layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                       uint32_t* keys, uint32_t* vals) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) WindowDigitsStep(i, n, layout, canon, words, ranks, keys, vals);
}

int CheckedCount(size_t m) {
  if (m > size_t(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("GPU MSM sort: more than 2^31 - 1 entries (n times windows); use wider windows");
  }
  return int(m);
}

}  // namespace

void LaunchClassify(size_t n, const Fr* scalars, const uint64_t* words, Fr* canon, uint32_t* flags, uint32_t* ones,
                    cudaStream_t stream) {
  if (n == 0) return;
  ClassifyKernel<<<Blocks(n), kDigitsBlock, 0, stream>>>(n, scalars, words, canon, flags, ones);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchOnesIndex(size_t n, const uint32_t* ones, const uint32_t* offsets, const uint64_t* words,
                     const uint32_t* ranks, uint32_t* indices, cudaStream_t stream) {
  if (n == 0) return;
  OnesIndexKernel<<<Blocks(n), kDigitsBlock, 0, stream>>>(n, ones, offsets, words, ranks, indices);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchCountDigits(size_t n, const Layout& layout, const Fr* canon, uint32_t* counts, cudaStream_t stream) {
  if (n == 0) return;
  CountDigitsKernel<<<Blocks(n), kDigitsBlock, 0, stream>>>(n, layout, canon, counts);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchDigits(size_t n, const Layout& layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                  const uint32_t* offsets, uint32_t* keys, uint32_t* vals, cudaStream_t stream) {
  if (n == 0) return;
  DigitsKernel<<<Blocks(n), kDigitsBlock, 0, stream>>>(n, layout, canon, words, ranks, offsets, keys, vals);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchWindowDigits(size_t n, const Layout& layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                        uint32_t* keys, uint32_t* vals, cudaStream_t stream) {
  if (n == 0) return;
  WindowDigitsKernel<<<Blocks(n), kDigitsBlock, 0, stream>>>(n, layout, canon, words, ranks, keys, vals);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

size_t ScanTempBytes(size_t n) {
  size_t bytes = 0;
  CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const uint32_t*>(nullptr),
                                                static_cast<uint32_t*>(nullptr), CheckedCount(n)));
  return bytes;
}

size_t ExclusiveSumTotal(void* temp, size_t temp_bytes, const uint32_t* in, uint32_t* out, size_t n,
                         cudaStream_t stream) {
  if (n == 0) return 0;
  CUZK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, CheckedCount(n), stream));
  uint32_t last[2] = {0, 0};
  CUZK_CUDA_CHECK(cudaMemcpyAsync(&last[0], in + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
  CUZK_CUDA_CHECK(cudaMemcpyAsync(&last[1], out + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
  CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return size_t(last[0]) + last[1];
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

int SortPairsByWindow(void* temp, size_t temp_bytes, uint32_t* const keys[2], uint32_t* const vals[2], size_t n,
                      const Layout& layout, cudaStream_t stream) {
  const int bits = int(layout.window_bits) - 1;
  int selector = -1;
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const size_t at = size_t(w) * n;
    uint32_t* const k[2] = {keys[0] + at, keys[1] + at};
    uint32_t* const v[2] = {vals[0] + at, vals[1] + at};
    const int s = SortPairs(temp, temp_bytes, k, v, n, bits, stream);
    if (selector >= 0 && s != selector) throw std::logic_error("GPU MSM sort: windows ended in different buffers");
    selector = s;
  }
  return selector;
}

}  // namespace cuzk::cuda::pippenger
