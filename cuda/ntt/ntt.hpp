#pragma once
// NTTs over Fr on an NVIDIA GPU, bit-exact with the CPU transforms of
// engine/poly/ntt.hpp (same conventions, same field elements: buffers of
// ff::Fr in Montgomery form, natural order in and out).
//
//   cuda::NttEngine ntt(/*device=*/0);
//   ntt.Run(cuda::NttKind::kCosetForward, device_ptr, n, stream);   // data already on the GPU
//   ntt.RunHost(cuda::NttKind::kInverse, pinned_span, stream);      // H2D, NTT, D2H; waits
//
// Design (ntt_plan.hpp): radix-2 decimation in frequency in <= 3 passes of
// <= 10 stages through shared memory (2^27: 3 x 9); the last pass writes
// natural order directly (bit reversal fused, out of place through a scratch
// buffer of n elements from the engine's memory pool). Coset powers are fused
// into the first pass, n^-1 and inverse coset powers into the last. The
// twiddle table w_N^i (i < N/2) lives on the device and is shared by all
// sizes <= N (2^27: 2 GiB).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <span>

#include "cuda/ntt/ntt_plan.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::cuda {

struct NttOptions {
  // g of the coset kinds (Groth16's H uses the default, the multiplicative generator 7).
  ff::Fr coset_shift = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator);
  // The result is `scale` times the kind's transform, folded into the
  // multiplications the kind already makes: the coset powers' table, the
  // inverse's n^-1 (scale = n: the raw inverse sum, with no multiplication
  // at all). kForward with a scale other than 1 multiplies its outputs once
  // (in the last pass, or in the bit-reversal pass when that runs apart).
  ff::Fr scale = ff::Fr::One();
  // Kernel shape; the default is the fastest measured (docs/perf/gpu.md).
  NttKernelConfig kernel;
};

// Owns one device's NTT tables (twiddles, coset powers). Thread-safe: calls
// from several threads serialize only while enqueuing.
class NttEngine {
 public:
  explicit NttEngine(int device = 0);
  ~NttEngine();
  NttEngine(const NttEngine&) = delete;
  NttEngine& operator=(const NttEngine&) = delete;

  int device() const;

  // Builds the twiddle table for sizes up to 2^log_n now (otherwise the first
  // Run of a larger size does it, and waits for it). Growing the table waits
  // for all work on the device, so prepare the largest size first.
  void Prepare(unsigned log_n);

  // In-place transform of n (a power of two, 2 <= n <= 2^28) elements in
  // device memory (16-byte aligned), enqueued on `stream`; returns at once.
  void Run(NttKind kind, ff::Fr* device_data, size_t n, cudaStream_t stream, const NttOptions& options = {});

  // Round trip through the GPU for data in host memory, page-locked
  // (cudaHostAlloc) for full PCIe speed: H2D, transform, D2H on `stream`.
  // Returns when the result is back in `host_data`.
  void RunHost(NttKind kind, std::span<ff::Fr> host_data, cudaStream_t stream, const NttOptions& options = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::cuda
