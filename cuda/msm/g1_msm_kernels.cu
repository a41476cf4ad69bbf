// The GPU MSM point kernels for G1 (points over Fp).
#include "cuda/ec/point.hpp"
#include "cuda/msm/msm_point_kernels.cuh"

namespace cuzk::cuda::pippenger {
CUZK_INSTANTIATE_MSM_POINT_KERNELS(Fp);
// MsmGpuOptions::mul_pipes: the XYZZ bucket accumulation on FpDfma or FpBoth (the
// rest of the MSM stays on Fp).
template void LaunchAccumulate<FpDfma>(size_t, size_t, size_t, uint32_t, const uint32_t*, const uint32_t*,
                                       const AffinePoint<FpDfma>*, XyzzPoint<FpDfma>*, XyzzPoint<FpDfma>*, uint32_t*,
                                       cudaStream_t);
template void LaunchAccumulate<FpBoth>(size_t, size_t, size_t, uint32_t, const uint32_t*, const uint32_t*,
                                       const AffinePoint<FpBoth>*, XyzzPoint<FpBoth>*, XyzzPoint<FpBoth>*, uint32_t*,
                                       cudaStream_t);
}  // namespace cuzk::cuda::pippenger
