// The GPU MSM point kernels for G2 (points over Fp2).
#include "cuda/ec/point.hpp"
#include "cuda/msm/msm_point_kernels.cuh"

namespace cuzk::cuda::pippenger {
CUZK_INSTANTIATE_MSM_POINT_KERNELS(Fp2);
}  // namespace cuzk::cuda::pippenger
