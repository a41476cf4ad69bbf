#pragma once
// Multi-scalar multiplication on the CPU: sum_i scalars[i] * bases[i] by
// Pippenger's bucket method with signed windows, multi-threaded.
//
// Usage:
//   G1Jacobian r = msm::MsmG1(bases, scalars);                  // dense
//   G1Jacobian r = msm::MsmG1(bases, scalars, {.threads = 1});  // one thread
//   G1Jacobian r = msm::MsmG1Density(bases, scalars, density);  // Groth16 A/B
#include <cstddef>
#include <span>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/density_bitmap.hpp"

namespace cuzk::msm {

struct MsmOptions {
  unsigned threads = 0;      // 0 = all hardware threads
  unsigned window_bits = 0;  // 0 = chosen from the size; else 1..24 (std::invalid_argument otherwise)
};

// bases.size() must equal scalars.size() (std::invalid_argument otherwise).
ec::G1Jacobian MsmG1(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars,
                     const MsmOptions& options = {});
ec::G2Jacobian MsmG2(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars,
                     const MsmOptions& options = {});

// Density-filtered: scalars has one entry per variable (density.size());
// bases has one entry per set bit, in order. Scalars whose bit is clear are
// skipped. Sizes are checked (std::invalid_argument).
ec::G1Jacobian MsmG1Density(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars,
                            const DensityBitmap& density, const MsmOptions& options = {});
ec::G2Jacobian MsmG2Density(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars,
                            const DensityBitmap& density, const MsmOptions& options = {});

// The window width (bits) that MsmG1/MsmG2 use for n full-size scalars with these options: the
// override when set, else the cost model's choice (reported by benchmarks).
unsigned MsmWindowBits(size_t n, const MsmOptions& options = {});

// The slow reference: sum of scalar multiplications (for tests).
ec::G1Jacobian NaiveMsmG1(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars);
ec::G2Jacobian NaiveMsmG2(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars);

}  // namespace cuzk::msm
