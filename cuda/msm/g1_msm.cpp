// The GPU MSM driver (msm_impl.hpp) for G1.
#include "cuda/msm/msm_impl.hpp"

namespace cuzk::cuda {
template class DeviceBases<G1Gpu>;
template class Msm<G1Gpu>;
}  // namespace cuzk::cuda
