#pragma once
// The GPUs this process can prove on, as the daemon reports them (GetStatus,
// /status). In a CUDA build the CUDA runtime's list (cuda::ListDevices);
// without CUDA, or on a host without a driver or device, an empty list.
// The daemon asks here instead of calling the CUDA runtime itself.
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::prover {

struct GpuInfo {
  uint32_t ordinal = 0;
  std::string name;
  uint64_t vram_total_bytes = 0, vram_free_bytes = 0;
  // What the daemon's backend holds on it (ProofRunner::FillHeld): the
  // parameter sets' bases (shifted H tables included) and compact circuits,
  // the shifted H tables alone, key images whose witness sections still
  // stream (gpus.early_proving) and the proofs that waited for them.
  uint64_t bases_bytes = 0, circuit_bytes = 0, shifted_h_bytes = 0;
  uint32_t keys_landing = 0;
  uint64_t deferred_proofs = 0;
};

// devices: the configured ordinals ([] = every device present).
std::vector<GpuInfo> QueryGpus(const std::vector<int>& devices);

}  // namespace cuzk::prover
