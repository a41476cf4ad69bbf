#include "cuda/groth16/h_kernels.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "cuda/ff/fr.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {
namespace {

// Both kernels are memory-bound (32 B per element per operand, one
// multiplication): a grid-stride loop over ~8 blocks per SM is enough.
constexpr unsigned kBlock = 256;

unsigned GridFor(size_t n) { return unsigned(std::min<size_t>((n + kBlock - 1) / kBlock, 132 * 8)); }

// On the coset: a <- a b.
__global__ void HProductKernel(Fr* a, const Fr* b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = a[i] * b[i];
  }
}

// a <- (a - c) z_inv (on coefficients in the six-NTT order, on the coset in
// bellperson's).
__global__ void HDifferenceKernel(Fr* a, const Fr* c, Fr z_inv, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    a[i] = (a[i] - c[i]) * z_inv;
  }
}

void CheckSize(size_t m) {
  if (m < 2 || !std::has_single_bit(m)) throw std::invalid_argument("H on the device: m must be a power of two >= 2");
}

void LaunchProduct(ff::Fr* a, const ff::Fr* b, size_t m, cudaStream_t stream) {
  HProductKernel<<<GridFor(m), kBlock, 0, stream>>>(reinterpret_cast<Fr*>(a), reinterpret_cast<const Fr*>(b), m);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

void LaunchDifference(ff::Fr* a, const ff::Fr* c, const ff::Fr& factor, size_t m, cudaStream_t stream) {
  HDifferenceKernel<<<GridFor(m), kBlock, 0, stream>>>(reinterpret_cast<Fr*>(a), reinterpret_cast<const Fr*>(c),
                                                       Fr::FromHost(factor), m);
  CUZK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void EnqueueHTransform(NttEngine& ntt, int k, ff::Fr* vector, size_t m, cudaStream_t stream) {
  if (k < 0 || k > 2) throw std::invalid_argument("EnqueueHTransform: k must be 0 (a), 1 (b) or 2 (c)");
  CheckSize(m);
  const HScales scales = MakeHScales(m);
  ntt.Run(NttKind::kInverse, vector, m, stream, {.scale = scales.inverse});
  if (k < 2) ntt.Run(NttKind::kCosetForward, vector, m, stream, {.scale = scales.coset_forward});
}

void EnqueueHCombine(NttEngine& ntt, ff::Fr* a, const ff::Fr* b, const ff::Fr* c, size_t m, cudaStream_t stream) {
  CheckSize(m);
  const HScales scales = MakeHScales(m);
  LaunchProduct(a, b, m, stream);
  ntt.Run(NttKind::kCosetInverse, a, m, stream, {.scale = scales.coset_inverse});
  LaunchDifference(a, c, scales.difference, m, stream);
}

void EnqueueHSevenNtts(NttEngine& ntt, ff::Fr* a, ff::Fr* b, ff::Fr* c, size_t m, cudaStream_t stream) {
  CheckSize(m);
  for (ff::Fr* v : {a, b, c}) {
    ntt.Run(NttKind::kInverse, v, m, stream);
    ntt.Run(NttKind::kCosetForward, v, m, stream);
  }
  LaunchProduct(a, b, m, stream);
  LaunchDifference(a, c, ZOnCosetInverse(m), m, stream);  // on the coset: bellperson's pointwise (a b - c) (g^m - 1)^-1
  ntt.Run(NttKind::kCosetInverse, a, m, stream);
}

}  // namespace cuzk::cuda
