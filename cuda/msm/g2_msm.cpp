// The GPU MSM driver (msm_impl.hpp) for G2.
#include "cuda/msm/msm_impl.hpp"

namespace cuzk::cuda {
template class DeviceBases<G2Gpu>;
template class Msm<G2Gpu>;
}  // namespace cuzk::cuda
