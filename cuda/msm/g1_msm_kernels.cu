#include "cuda/msm/g1_msm_kernels.hpp"

#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::g1msm {
namespace {

// Threads per block. The point kernels hold an XYZZ sum (48 words) plus an
// affine point and the multiplication temporaries: ~170 registers per
// thread, so 128-thread blocks.
constexpr unsigned kPointBlock = 128, kDigitsBlock = 256;

unsigned Blocks(size_t threads, unsigned block) { return unsigned((threads + block - 1) / block); }

__global__ void __launch_bounds__(kDigitsBlock) DigitsKernel(size_t n, Layout layout, const Fr* scalars,
                                                             const uint64_t* words, const uint32_t* ranks,
                                                             uint32_t* keys, uint32_t* vals) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) DigitsStep(i, n, layout, scalars, words, ranks, keys, vals);
}

__global__ void __launch_bounds__(kPointBlock) AccumulateKernel(size_t chunks, size_t chunk, size_t m,
                                                                uint32_t sentinel, const uint32_t* keys,
                                                                const uint32_t* vals, const G1Affine* bases,
                                                                G1Xyzz* buckets, G1Xyzz* partials,
                                                                uint32_t* partial_keys) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < chunks) AccumulateStep(t, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
}

__global__ void __launch_bounds__(kPointBlock) FixupTreeKernel(size_t pairs, size_t stride, size_t chunks,
                                                               uint32_t sentinel, G1Xyzz* partials,
                                                               const uint32_t* partial_keys) {
  const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (j < pairs) FixupTreeStep(j, stride, chunks, sentinel, partials, partial_keys);
}

__global__ void __launch_bounds__(kPointBlock) FixupKernel(size_t chunks, uint32_t sentinel, const G1Xyzz* partials,
                                                           const uint32_t* partial_keys, G1Xyzz* buckets) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < chunks) FixupStep(t, chunks, sentinel, partials, partial_keys, buckets);
}

__global__ void __launch_bounds__(kPointBlock) SegmentKernel(size_t threads, Layout layout, uint32_t segment_len,
                                                             const G1Xyzz* buckets, G1Xyzz* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < threads) SegmentStep(t, layout, segment_len, buckets, out);
}

__global__ void __launch_bounds__(kPointBlock) GroupSumKernel(size_t threads, uint32_t in_per_window, uint32_t group,
                                                              const G1Xyzz* in, G1Xyzz* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < threads) GroupSumStep(t, in_per_window, group, in, out);
}

}  // namespace

void LaunchDigits(size_t n, const Layout& layout, const Fr* scalars, const uint64_t* words, const uint32_t* ranks,
                  uint32_t* keys, uint32_t* vals, cudaStream_t stream) {
  if (n == 0) return;
  DigitsKernel<<<Blocks(n, kDigitsBlock), kDigitsBlock, 0, stream>>>(n, layout, scalars, words, ranks, keys, vals);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchAccumulate(size_t chunks, size_t chunk, size_t m, uint32_t sentinel, const uint32_t* keys,
                      const uint32_t* vals, const G1Affine* bases, G1Xyzz* buckets, G1Xyzz* partials,
                      uint32_t* partial_keys, cudaStream_t stream) {
  if (chunks == 0) return;
  AccumulateKernel<<<Blocks(chunks, kPointBlock), kPointBlock, 0, stream>>>(chunks, chunk, m, sentinel, keys, vals,
                                                                            bases, buckets, partials, partial_keys);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchFixup(size_t chunks, uint32_t sentinel, G1Xyzz* partials, const uint32_t* partial_keys, G1Xyzz* buckets,
                 cudaStream_t stream) {
  if (chunks == 0) return;
  // Most pair threads exit after two key loads; only runs inside one bucket add.
  for (uint32_t pass = 0; pass < FixupTreePasses(chunks); ++pass) {
    const size_t stride = size_t(1) << pass;
    const size_t pairs = (chunks + 2 * stride - 1) / (2 * stride);
    FixupTreeKernel<<<Blocks(pairs, kPointBlock), kPointBlock, 0, stream>>>(pairs, stride, chunks, sentinel, partials,
                                                                            partial_keys);
    CUZK_CUDA_CHECK(cudaGetLastError());
  }
  FixupKernel<<<Blocks(chunks, kPointBlock), kPointBlock, 0, stream>>>(chunks, sentinel, partials, partial_keys,
                                                                       buckets);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchSegments(const Layout& layout, uint32_t segment_len, const G1Xyzz* buckets, G1Xyzz* out,
                    cudaStream_t stream) {
  const size_t threads = size_t(layout.windows) * (layout.buckets / segment_len);
  SegmentKernel<<<Blocks(threads, kPointBlock), kPointBlock, 0, stream>>>(threads, layout, segment_len, buckets, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchGroupSum(uint32_t windows, uint32_t in_per_window, uint32_t group, const G1Xyzz* in, G1Xyzz* out,
                    cudaStream_t stream) {
  const size_t threads = size_t(windows) * ((in_per_window + group - 1) / group);
  GroupSumKernel<<<Blocks(threads, kPointBlock), kPointBlock, 0, stream>>>(threads, in_per_window, group, in, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzk::cuda::g1msm
