#include "cuda/groth16/h_kernels.hpp"

#include "cuda/ff/fr.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {
namespace {

// Memory-bound (3 reads, 1 write of 32 B, two multiplications): a grid-stride
// loop over ~8 blocks per SM is enough.
__global__ void HPointwiseKernel(Fr* a, const Fr* b, const Fr* c, Fr z_inv, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = (a[i] * b[i] - c[i]) * z_inv;
  }
}

}  // namespace

void LaunchHPointwise(ff::Fr* a, const ff::Fr* b, const ff::Fr* c, const ff::Fr& z_inv, size_t n, cudaStream_t stream) {
  if (n == 0) return;
  constexpr unsigned kBlock = 256;
  const unsigned blocks = unsigned(std::min<size_t>((n + kBlock - 1) / kBlock, 132 * 8));
  HPointwiseKernel<<<blocks, kBlock, 0, stream>>>(reinterpret_cast<Fr*>(a), reinterpret_cast<const Fr*>(b),
                                                  reinterpret_cast<const Fr*>(c), Fr::FromHost(z_inv), n);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzk::cuda
