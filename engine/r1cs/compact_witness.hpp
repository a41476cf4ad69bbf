#pragma once
// CompactWitness: an assignment z as it crosses PCIe for witness-only
// proving: 2 bits of class per variable (zero / one / other) and only the
// "other" values. SnapDeals witnesses are ~52% zeros, ~47% ones and ~1%
// other values (docs/perf/gpu.md, witness-stats), so a 32 GiB partition's
// 2.6 GB of z becomes ~20 MB of classes plus ~26 MB of values. The GPU
// expands it (cuda/r1cs/abc_steps.hpp: ExpandWitnessStep, one thread per
// variable, no scan pass): a variable's rank among the "other" values is its
// chunk's base (chunk_others, one word per kChunkVariables) plus the
// popcounts of the class words before it in the chunk.
//
//   r1cs::CompactWitness w = r1cs::CompactWitnessOf(z.values);
//   std::vector<ff::Fr> back = r1cs::ExpandWitness(w);   // == z.values (host reference)
//   r1cs::ExpandWitnessInto(w, z_out, threads);          // the same, multi-threaded, into caller memory
#include <cstdint>
#include <span>
#include <vector>

#include "engine/ff/fr.hpp"

namespace cuzk::r1cs {

enum class WitnessClass : uint32_t { kZero = 0, kOne = 1, kOther = 2 };

struct CompactWitness {
  static constexpr uint32_t kClassBits = 2;
  static constexpr uint32_t kVariablesPerWord = 32 / kClassBits;  // 16 in a uint32_t, variable v at bits 2 (v % 16)
  static constexpr uint32_t kWordsPerChunk = 16;
  static constexpr uint32_t kChunkVariables = kVariablesPerWord * kWordsPerChunk;  // 256

  uint64_t num_variables = 0;
  std::vector<uint32_t> classes;       // ceil(n / 16) words; unused high bits 0 (zero)
  std::vector<uint32_t> chunk_others;  // ceil(n / 256): "other" values before each chunk
  std::vector<ff::Fr> others;          // the "other" values in variable order (Montgomery form)

  size_t Bytes() const {
    return classes.size() * sizeof(uint32_t) + chunk_others.size() * sizeof(uint32_t) + others.size() * sizeof(ff::Fr);
  }
};

// Multi-threaded (two passes over z: count per chunk, then write).
// std::length_error for 2^32 or more "other" values (32-bit ranks).
CompactWitness CompactWitnessOf(std::span<const ff::Fr> z, unsigned threads = 0);

// Class of variable v.
inline WitnessClass ClassOf(const CompactWitness& w, uint64_t v) {
  return WitnessClass(
      (w.classes[v / CompactWitness::kVariablesPerWord] >> (2 * (v % CompactWitness::kVariablesPerWord))) & 3u);
}

// std::invalid_argument unless w is consistent in itself, the way the GPU's
// expansion reads it (ExpandWitnessStep: ranks from chunk bases plus
// popcounts): array sizes, no class 3, no class past the last variable,
// each chunk's base equal to the "other" classes before it, as many values
// as "other" classes. Then no expansion reads outside w's arrays. One pass
// over the classes (32 GiB partition: 5M words; not timed): every backend's
// ProveStart runs it (groth16::CheckProverInput) on compact witnesses.
void CheckCompactWitness(const CompactWitness& w);

// z back on the host, sequentially (the reference for the GPU expansion).
std::vector<ff::Fr> ExpandWitness(const CompactWitness& w);

// z back on the host into `z` (exactly w.num_variables values, every one
// written) on `threads` threads, each chunk from its chunk_others base as the
// GPU does: the CPU paths' expansion of a witness that travelled compact
// (CpuBackend, a snarkjs key's host a/b/c, a CudaBackend without the B_g2
// bases on the device). The compact witness is checked first
// (CheckCompactWitness): std::invalid_argument for one that is inconsistent.
// Cost: one pass over z (32 GiB partition: 2.6 GB written).
void ExpandWitnessInto(const CompactWitness& w, std::span<ff::Fr> z, unsigned threads = 0);

}  // namespace cuzk::r1cs
