#pragma once
// CpuBackend: the reference Backend, on engine/poly (NTT) and engine/msm
// (Pippenger), multi-threaded. Witnesses of a batch are proved one after the
// other, each with all threads (the MSMs and NTTs scale well enough that
// running witnesses side by side buys little and multiplies memory).
// A witness-only input is evaluated on the host (EvaluateWitnessOnly, the
// reference), a compact-only one expanded first (ExpandCompactWitness).
//
//   groth16::CpuBackend cpu({.threads = 8});
//   Proof p = groth16::Prove(cpu, pk, circuit, std::move(z));
#include "engine/groth16/backend.hpp"

namespace cuzk::groth16 {

struct CpuBackendOptions {
  unsigned threads = 0;  // 0 = all hardware threads
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const CpuBackendOptions& options = {}) : options_(options) {}
  std::string_view name() const override { return "cpu"; }
  std::vector<PendingProof> ProveStart(const ProvingKey& pk, std::span<ProverInput> inputs) override;
  Proof ProveFinish(const ProvingKey& pk, PendingProof&& pending, const ff::Fr& r, const ff::Fr& s) override;

 private:
  // came_compact: z was expanded from the input's compact witness (the G2
  // MSM runs in ProveStart then, so that the whole z does not outlive it).
  PendingProof StartOne(const ProvingKey& pk, ProverInput& input, bool came_compact);
  CpuBackendOptions options_;
};

}  // namespace cuzk::groth16
