#pragma once
// CudaBackend: the groth16::Backend on one NVIDIA GPU, bit-identical with
// CpuBackend (same MSM sums as group elements, same AssembleProof, so the
// same r, s give the same proof bytes).
//
//   cuda::CudaBackend gpu({.device = 0});
//   groth16::Proof p = groth16::Prove(gpu, pk, circuit, std::move(z));
//
// ProveStart, per witness:
//   H (bellperson form): a, b, c to the device; iNTT, coset NTT (g = 7) each;
//     (a b - c) (g^m - 1)^-1 pointwise; inverse coset NTT; the first m - 1
//     coefficients stay on the device as the H MSM's scalars. (snarkjs form:
//     H scalars on the CPU, engine/groth16/h_polynomial.hpp, then the GPU MSM.)
//   G1 MSMs on the GPU (cuda/msm/msm.hpp): H, A (a_density), B_g1
//     (b_density), L (aux), with the key's bases resident in device memory:
//     uploaded on the first proof with a key and kept for later proofs with
//     the same key (identified by address and a fingerprint of its sections).
// ProveFinish: B_g2 MSM on the CPU (engine/msm) and AssembleProof, like the
// CPU backend: it runs on the finalizer thread while the GPU proves the next.
//
// Costs today (what the pipeline issue improves): a/b/c and z come from
// pageable host memory (~8 GB/s instead of ~55 GB/s pinned); every 0/1
// witness value goes through Pippenger (no bit-witness split yet).
// ProveStart calls serialize on one mutex (one stream, one scratch set).
#include <memory>
#include <string_view>

#include "engine/groth16/backend.hpp"

namespace cuzk::cuda {

struct CudaBackendOptions {
  int device = 0;
  unsigned cpu_threads = 0;  // the G2 MSM of ProveFinish; 0 = all hardware threads
};

class CudaBackend final : public groth16::Backend {
 public:
  // std::runtime_error when the device does not exist.
  explicit CudaBackend(const CudaBackendOptions& options = {});
  ~CudaBackend() override;
  std::string_view name() const override { return "cuda"; }
  std::vector<groth16::PendingProof> ProveStart(const groth16::ProvingKey& pk,
                                                std::span<groth16::ProverInput> inputs) override;
  groth16::Proof ProveFinish(const groth16::ProvingKey& pk, groth16::PendingProof&& pending, const ff::Fr& r,
                             const ff::Fr& s) override;

  // Drops the device copy of a key's bases (call before destroying a key
  // that might be proved with again at the same address; frees device memory).
  void ForgetKey(const groth16::ProvingKey& pk);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::cuda
