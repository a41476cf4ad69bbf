// The GPU MSM point kernels for G1 (points over Fp).
#include "cuda/ec/point.hpp"
#include "cuda/msm/msm_point_kernels.cuh"

namespace cuzk::cuda::pippenger {
CUZK_INSTANTIATE_MSM_POINT_KERNELS(Fp);
}  // namespace cuzk::cuda::pippenger
