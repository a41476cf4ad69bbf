// The decompression kernel of cuda/ec/g1_compressed.hpp: one thread a record.
#include "cuda/ec/g1_compressed.hpp"
#include "cuda/msm/msm_steps.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {
namespace {

constexpr unsigned kBlock = 128;

__global__ void __launch_bounds__(kBlock) DecompressG1Kernel(size_t n, const CompressedG1* in, AffinePoint<Fp>* out,
                                                             unsigned long long* first_bad, uint64_t index_base) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  AffinePoint<Fp> p;
  if (DecompressG1(pippenger::LoadPoint(in + i), p)) {
    pippenger::StorePoint(out + i, p);
  } else {
    atomicMin(first_bad, static_cast<unsigned long long>(index_base + i));
  }
}

}  // namespace

void LaunchDecompressG1(size_t n, const CompressedG1* in, AffinePoint<Fp>* out, unsigned long long* first_bad,
                        cudaStream_t stream, uint64_t index_base) {
  if (n == 0) return;
  DecompressG1Kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(n, in, out, first_bad, index_base);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzk::cuda
