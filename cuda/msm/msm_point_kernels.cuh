#pragma once
// Definitions of the point kernels and launchers of msm_kernels.hpp, for
// g1_msm_kernels.cu and g2_msm_kernels.cu to instantiate (see
// CUZK_INSTANTIATE_MSM_POINT_KERNELS at the end). The digits kernel lives in
// msm_scalars.cu.
#include "cuda/msm/msm_kernels.hpp"

#include <stdexcept>
#include <type_traits>

#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::pippenger {
namespace {

// Threads per block. The G1 point kernels hold an XYZZ sum (48 words) plus an
// affine point and the multiplication temporaries: ~170 registers per
// thread, so 128-thread blocks (G2: twice the words; ptxas -v tells).
constexpr unsigned kPointBlock = 128;

unsigned Blocks(size_t threads, unsigned block) { return unsigned((threads + block - 1) / block); }

// The FpDfma and FpBoth XYZZ accumulations want a few more registers than
// Fp's (172 against 164), which leaves 2 blocks an SM instead of 3 and made
// FpDfma's 2.4x slower (session 11 call 1): capped at 3 blocks (<= 168).
// Only those two: the cap spilled G2's (Fp2) accumulation 1.7 KB a thread
// and made its MSM 1.45x slower (2^22: 181.6 ms against 125, session 12
// call 2).
template <class F>
constexpr int kAccumulateMinBlocks = std::is_same_v<F, FpDfma> || std::is_same_v<F, FpBoth> ? 3 : 1;

template <class F>
__global__ void __launch_bounds__(kPointBlock, kAccumulateMinBlocks<F>)
    AccumulateKernel(size_t chunks, size_t chunk, size_t m, uint32_t sentinel, const uint32_t* keys,
                     const uint32_t* vals, const AffinePoint<F>* bases, XyzzPoint<F>* buckets, XyzzPoint<F>* partials,
                     uint32_t* partial_keys) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < chunks) AccumulateStep(t, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
}

template <class F, int K>
__global__ void __launch_bounds__(kPointBlock)
    AccumulateBatchedKernel(size_t threads, size_t chunks, size_t chunk, size_t m, uint32_t sentinel,
                            const uint32_t* keys, const uint32_t* vals, const AffinePoint<F>* bases,
                            XyzzPoint<F>* buckets, XyzzPoint<F>* partials, uint32_t* partial_keys) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < threads) {
    AccumulateBatchedStep<F, K>(t, chunks, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
  }
}

template <class F>
__global__ void __launch_bounds__(kPointBlock)
    OnesSumKernel(size_t chunks, size_t chunk, size_t count, const uint32_t* indices, const AffinePoint<F>* bases,
                  XyzzPoint<F>* sums) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < chunks) OnesSumStep(t, chunk, count, indices, bases, sums);
}

template <class F>
__global__ void __launch_bounds__(kPointBlock)
    FixupTreeKernel(size_t pairs, size_t stride, size_t chunks, uint32_t sentinel, XyzzPoint<F>* partials,
                    const uint32_t* partial_keys) {
  const size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (j < pairs) FixupTreeStep(j, stride, chunks, sentinel, partials, partial_keys);
}

template <class F>
__global__ void __launch_bounds__(kPointBlock)
    FixupKernel(size_t chunks, uint32_t sentinel, const XyzzPoint<F>* partials, const uint32_t* partial_keys,
                XyzzPoint<F>* buckets) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < chunks) FixupStep(t, chunks, sentinel, partials, partial_keys, buckets);
}

template <class F>
__global__ void __launch_bounds__(kPointBlock)
    AddBucketsKernel(size_t count, const XyzzPoint<F>* more, XyzzPoint<F>* buckets) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < count) BucketAddStep(t, more, buckets);
}

template <class F>
__global__ void __launch_bounds__(kPointBlock)
    SegmentKernel(size_t threads, Layout layout, uint32_t segment_len, const XyzzPoint<F>* buckets, XyzzPoint<F>* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < threads) SegmentStep(t, layout, segment_len, buckets, out);
}

template <class F>
__global__ void __launch_bounds__(kPointBlock)
    GroupSumKernel(size_t threads, uint32_t in_per_window, uint32_t group, const XyzzPoint<F>* in, XyzzPoint<F>* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < threads) GroupSumStep(t, in_per_window, group, in, out);
}

}  // namespace

template <class F>
void LaunchAccumulate(size_t chunks, size_t chunk, size_t m, uint32_t sentinel, const uint32_t* keys,
                      const uint32_t* vals, const AffinePoint<F>* bases, XyzzPoint<F>* buckets, XyzzPoint<F>* partials,
                      uint32_t* partial_keys, cudaStream_t stream) {
  if (chunks == 0) return;
  AccumulateKernel<F><<<Blocks(chunks, kPointBlock), kPointBlock, 0, stream>>>(chunks, chunk, m, sentinel, keys, vals,
                                                                               bases, buckets, partials, partial_keys);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchAccumulateBatched(uint32_t batch, size_t chunks, size_t chunk, size_t m, uint32_t sentinel,
                             const uint32_t* keys, const uint32_t* vals, const AffinePoint<F>* bases,
                             XyzzPoint<F>* buckets, XyzzPoint<F>* partials, uint32_t* partial_keys,
                             cudaStream_t stream) {
  if (chunks == 0) return;
  // Built for G1 only: slower than XYZZ for G2 (Msm refuses it there), and
  // each Fp2 instantiation costs minutes of ptxas.
  if constexpr (!std::is_same_v<F, Fp>) {
    throw std::invalid_argument("GPU MSM: the batched affine accumulation is built for G1 only");
  } else {
    const size_t threads = (chunks + batch - 1) / batch;
    const unsigned blocks = Blocks(threads, kPointBlock);
    switch (batch) {
      case 8:
        AccumulateBatchedKernel<F, 8><<<blocks, kPointBlock, 0, stream>>>(threads, chunks, chunk, m, sentinel, keys,
                                                                          vals, bases, buckets, partials, partial_keys);
        break;
      case 16:
        AccumulateBatchedKernel<F, 16><<<blocks, kPointBlock, 0, stream>>>(
            threads, chunks, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
        break;
      case 32:
        AccumulateBatchedKernel<F, 32><<<blocks, kPointBlock, 0, stream>>>(
            threads, chunks, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
        break;
      default: throw std::invalid_argument("GPU MSM: batch must be 0, 1, 8, 16 or 32");
    }
    CUZK_CUDA_CHECK(cudaGetLastError());
  }
}

template <class F>
void LaunchOnesSum(size_t chunks, size_t chunk, size_t count, const uint32_t* indices, const AffinePoint<F>* bases,
                   XyzzPoint<F>* sums, cudaStream_t stream) {
  if (chunks == 0) return;
  OnesSumKernel<F><<<Blocks(chunks, kPointBlock), kPointBlock, 0, stream>>>(chunks, chunk, count, indices, bases, sums);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchFixup(size_t chunks, uint32_t sentinel, XyzzPoint<F>* partials, const uint32_t* partial_keys,
                 XyzzPoint<F>* buckets, cudaStream_t stream) {
  if (chunks == 0) return;
  // Most pair threads exit after two key loads; only runs inside one bucket add.
  for (uint32_t pass = 0; pass < FixupTreePasses(chunks); ++pass) {
    const size_t stride = size_t(1) << pass;
    const size_t pairs = (chunks + 2 * stride - 1) / (2 * stride);
    FixupTreeKernel<F><<<Blocks(pairs, kPointBlock), kPointBlock, 0, stream>>>(pairs, stride, chunks, sentinel,
                                                                               partials, partial_keys);
    CUZK_CUDA_CHECK(cudaGetLastError());
  }
  FixupKernel<F>
      <<<Blocks(chunks, kPointBlock), kPointBlock, 0, stream>>>(chunks, sentinel, partials, partial_keys, buckets);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchAddBuckets(size_t count, const XyzzPoint<F>* more, XyzzPoint<F>* buckets, cudaStream_t stream) {
  if (count == 0) return;
  AddBucketsKernel<F><<<Blocks(count, kPointBlock), kPointBlock, 0, stream>>>(count, more, buckets);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchSegments(const Layout& layout, uint32_t segment_len, const XyzzPoint<F>* buckets, XyzzPoint<F>* out,
                    cudaStream_t stream) {
  const size_t threads = size_t(layout.windows) * (layout.buckets / segment_len);
  SegmentKernel<F>
      <<<Blocks(threads, kPointBlock), kPointBlock, 0, stream>>>(threads, layout, segment_len, buckets, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchGroupSum(uint32_t windows, uint32_t in_per_window, uint32_t group, const XyzzPoint<F>* in, XyzzPoint<F>* out,
                    cudaStream_t stream) {
  const size_t threads = size_t(windows) * ((in_per_window + group - 1) / group);
  GroupSumKernel<F><<<Blocks(threads, kPointBlock), kPointBlock, 0, stream>>>(threads, in_per_window, group, in, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzk::cuda::pippenger

// Explicit instantiation of every point launcher for one device field.
#define CUZK_INSTANTIATE_MSM_POINT_KERNELS(F)                                                                      \
  template void LaunchAccumulate<F>(size_t, size_t, size_t, uint32_t, const uint32_t*, const uint32_t*,            \
                                    const AffinePoint<F>*, XyzzPoint<F>*, XyzzPoint<F>*, uint32_t*, cudaStream_t); \
  template void LaunchAccumulateBatched<F>(uint32_t, size_t, size_t, size_t, uint32_t, const uint32_t*,            \
                                           const uint32_t*, const AffinePoint<F>*, XyzzPoint<F>*, XyzzPoint<F>*,   \
                                           uint32_t*, cudaStream_t);                                               \
  template void LaunchOnesSum<F>(size_t, size_t, size_t, const uint32_t*, const AffinePoint<F>*, XyzzPoint<F>*,    \
                                 cudaStream_t);                                                                    \
  template void LaunchFixup<F>(size_t, uint32_t, XyzzPoint<F>*, const uint32_t*, XyzzPoint<F>*, cudaStream_t);     \
  template void LaunchAddBuckets<F>(size_t, const XyzzPoint<F>*, XyzzPoint<F>*, cudaStream_t);                     \
  template void LaunchSegments<F>(const Layout&, uint32_t, const XyzzPoint<F>*, XyzzPoint<F>*, cudaStream_t);      \
  template void LaunchGroupSum<F>(uint32_t, uint32_t, uint32_t, const XyzzPoint<F>*, XyzzPoint<F>*, cudaStream_t)
