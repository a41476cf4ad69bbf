// Kernels of the batched fixed-base multiplication (fixed_base_steps.hpp),
// G1 and G2 in one translation unit (two small kernels per curve).
#include "cuda/msm/fixed_base.hpp"
#include "cuda/msm/fixed_base_steps.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::fixed_base {
namespace {

constexpr unsigned kBlock = 128;

unsigned Blocks(size_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

template <class F>
__global__ void __launch_bounds__(kBlock) MulKernel(size_t n, const Fr* scalars, uint32_t window_bits, uint32_t windows,
                                                    const AffinePoint<F>* table, XyzzPoint<F>* out) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) FixedBaseMulStep(i, scalars, window_bits, windows, table, out);
}

template <class F>
__global__ void __launch_bounds__(kBlock)
    ToAffineKernel(size_t groups, size_t n, const XyzzPoint<F>* in, AffinePoint<F>* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t < groups) ToAffineStep(t, n, in, out);
}

}  // namespace

template <class F>
void LaunchMul(size_t n, const ff::Fr* scalars, uint32_t window_bits, uint32_t windows, const AffinePoint<F>* table,
               XyzzPoint<F>* out, cudaStream_t stream) {
  if (n == 0) return;
  MulKernel<F>
      <<<Blocks(n), kBlock, 0, stream>>>(n, reinterpret_cast<const Fr*>(scalars), window_bits, windows, table, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchToAffine(size_t n, const XyzzPoint<F>* in, AffinePoint<F>* out, cudaStream_t stream) {
  if (n == 0) return;
  const size_t groups = (n + kAffineGroup - 1) / kAffineGroup;
  ToAffineKernel<F><<<Blocks(groups), kBlock, 0, stream>>>(groups, n, in, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template void LaunchMul<Fp>(size_t, const ff::Fr*, uint32_t, uint32_t, const AffinePoint<Fp>*, XyzzPoint<Fp>*,
                            cudaStream_t);
template void LaunchMul<Fp2>(size_t, const ff::Fr*, uint32_t, uint32_t, const AffinePoint<Fp2>*, XyzzPoint<Fp2>*,
                             cudaStream_t);
template void LaunchToAffine<Fp>(size_t, const XyzzPoint<Fp>*, AffinePoint<Fp>*, cudaStream_t);
template void LaunchToAffine<Fp2>(size_t, const XyzzPoint<Fp2>*, AffinePoint<Fp2>*, cudaStream_t);

}  // namespace cuzk::cuda::fixed_base
