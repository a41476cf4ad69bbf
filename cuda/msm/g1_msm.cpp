// The GPU MSM driver (msm_impl.hpp) for G1, and DeviceDensity (curve-free).
#include "cuda/msm/msm_impl.hpp"

namespace cuzk::cuda {
DeviceDensity::DeviceDensity(const msm::DensityBitmap& density)
    : size_(density.size()), count_(density.Count()), words_(density.words().size()), ranks_(density.words().size()) {
  const std::vector<uint64_t>& words = density.words();
  const std::vector<uint32_t> ranks = msm_internal::WordRanks(words);
  // Synchronous copies: the host vectors may go once this returns.
  if (!words.empty()) {
    CUZK_CUDA_CHECK(cudaMemcpy(words_.data(), words.data(), words_.bytes(), cudaMemcpyHostToDevice));
    CUZK_CUDA_CHECK(cudaMemcpy(ranks_.data(), ranks.data(), ranks_.bytes(), cudaMemcpyHostToDevice));
  }
}

template class DeviceBases<G1Gpu>;
template class Msm<G1Gpu>;
}  // namespace cuzk::cuda
