// The kernels of shifted bases: the table's shift (shifted_bases_steps.hpp,
// G1 and G2) and the digit entries that address it (step 1c'').
#include "cuda/msm/shifted_bases.hpp"
#include "cuda/msm/shifted_bases_steps.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda::pippenger {
namespace {

constexpr unsigned kBlock = 128;
constexpr unsigned kDigitsBlock = 256;

template <class F>
__global__ void __launch_bounds__(kBlock)
    ShiftKernel(size_t n, uint32_t c, const AffinePoint<F>* in, XyzzPoint<F>* out) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) ShiftStep(i, c, in, out);
}

__global__ void __launch_bounds__(kDigitsBlock)
    ShiftedDigitsKernel(size_t n, Layout layout, size_t stride, uint32_t copies, const Fr* canon, const uint64_t* words,
                        const uint32_t* ranks, uint32_t* keys, uint32_t* vals) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) ShiftedDigitsStep(i, n, layout, stride, copies, canon, words, ranks, keys, vals);
}

}  // namespace

void LaunchShiftedDigits(size_t n, const Layout& layout, size_t stride, uint32_t copies, const Fr* canon,
                         const uint64_t* words, const uint32_t* ranks, uint32_t* keys, uint32_t* vals,
                         cudaStream_t stream) {
  if (n == 0) return;
  ShiftedDigitsKernel<<<unsigned((n + kDigitsBlock - 1) / kDigitsBlock), kDigitsBlock, 0, stream>>>(
      n, layout, stride, copies, canon, words, ranks, keys, vals);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void LaunchShift(size_t n, uint32_t c, const AffinePoint<F>* in, XyzzPoint<F>* out, cudaStream_t stream) {
  if (n == 0) return;
  ShiftKernel<F><<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(n, c, in, out);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

template void LaunchShift<Fp>(size_t, uint32_t, const AffinePoint<Fp>*, XyzzPoint<Fp>*, cudaStream_t);
template void LaunchShift<Fp2>(size_t, uint32_t, const AffinePoint<Fp2>*, XyzzPoint<Fp2>*, cudaStream_t);

}  // namespace cuzk::cuda::pippenger
