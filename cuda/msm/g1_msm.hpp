#pragma once
// G1 multi-scalar multiplication on the GPU: sum_i s_i P_i over BLS12-381 G1
// with the bases resident in device memory across calls.
//
// Usage:
//   cuda::G1DeviceBases bases(points);      // upload once: 96 B per point (2^26 points: 6 GiB)
//   cuda::G1Msm msm;                        // owns the scratch memory and a stream; reuse it
//   ec::G1Jacobian r = msm.Run(bases, scalars, n);              // scalars in host memory
//   ec::G1Jacobian d = msm.RunDensity(bases, scalars, density); // Groth16 A/B sections
//
// Scalars are ff::Fr (Montgomery form, 32 B each) in host memory (pinned for
// ~55 GB/s; pageable works at ~8 GB/s) or, with scalars_at = kDevice, in
// device memory. The result is exact: equal to msm::MsmG1 as a group element.
// Algorithm and stage costs: cuda/msm/g1_msm_steps.hpp; measurements:
// docs/perf/gpu.md. A G1Msm is not thread-safe (one stream, one scratch set).
#include <cstddef>
#include <cstdint>
#include <span>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/ec/g1.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/density_bitmap.hpp"

namespace cuzk::cuda {

// Affine G1 points in device memory (infinity stored as (0, 0)).
class G1DeviceBases {
 public:
  explicit G1DeviceBases(std::span<const ec::G1Affine> points);
  size_t size() const { return points_.size(); }
  const G1Affine* data() const { return points_.data(); }

 private:
  DeviceBuffer<G1Affine> points_;
};

enum class ScalarsAt { kHost, kDevice };

struct G1MsmOptions {
  ScalarsAt scalars_at = ScalarsAt::kHost;
  uint32_t window_bits = 0;  // 0: chosen from n (g1msm::DefaultWindowBits); else 4..22
  size_t chunk = 0;          // sorted entries per accumulation thread; 0: default
};

// Per-stage device times of the last call (CUDA events), milliseconds.
struct G1MsmTimings {
  float upload_ms = 0;      // scalars H2D (0 for device scalars)
  float digits_ms = 0;      // Montgomery -> canonical, signed digits, keys
  float sort_ms = 0;        // radix sort of (bucket, base) pairs
  float accumulate_ms = 0;  // bucket sums (memset, chunks, fixup)
  float reduce_ms = 0;      // running sums per window, window sums, D2H
  float host_ms = 0;        // window combination on the host (wall clock)
  uint32_t window_bits = 0;
  size_t chunk = 0;
};

class G1Msm {
 public:
  G1Msm() = default;

  // sum_{i < n} scalars[i] * bases[i]; bases.size() >= n.
  ec::G1Jacobian Run(const G1DeviceBases& bases, const ff::Fr* scalars, size_t n, const G1MsmOptions& options = {},
                     G1MsmTimings* timings = nullptr);
  // sum over set bits i of density: scalars[i] * bases[rank(i)]; scalars has
  // density.size() entries, bases.size() >= density.Count().
  ec::G1Jacobian RunDensity(const G1DeviceBases& bases, const ff::Fr* scalars, const msm::DensityBitmap& density,
                            const G1MsmOptions& options = {}, G1MsmTimings* timings = nullptr);

 private:
  ec::G1Jacobian RunImpl(const G1DeviceBases& bases, const ff::Fr* scalars, size_t n, const uint64_t* words,
                         const uint32_t* ranks, const G1MsmOptions& options, G1MsmTimings* timings);

  Stream stream_;
  Event events_[6];
  // Scratch, grown on demand and kept (cudaMalloc of gigabytes costs ms).
  DeviceBuffer<Fr> scalars_;
  DeviceBuffer<uint64_t> words_;
  DeviceBuffer<uint32_t> ranks_;
  DeviceBuffer<uint32_t> keys_[2], vals_[2];
  DeviceBuffer<uint8_t> sort_temp_;
  DeviceBuffer<G1Xyzz> buckets_, partials_, level_[2];
  DeviceBuffer<uint32_t> partial_keys_;
  PinnedBuffer<G1Xyzz> window_sums_;
};

}  // namespace cuzk::cuda
