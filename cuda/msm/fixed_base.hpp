#pragma once
// Batched fixed-base scalar multiplication on the GPU: out[i] = scalars[i] G
// for the table's base G, bit-exact with groth16::FixedBaseTable::MulBatch
// (same table, same points as group elements, affine out). For the local
// setup of large circuits: a 2^27-point H section is 2^27 x 22 mixed
// additions at w = 12.
//
//   groth16::FixedBaseTable<ec::G1Curve> table(ec::G1Affine::Generator(), 12);
//   cuda::G1FixedBase gpu(table);            // uploads the table (8.6 MB in G1 at w = 12)
//   gpu.MulBatch(scalars, out);              // host spans; slices of 2^22 through pinned staging
//
// Steps and costs: cuda/msm/fixed_base_steps.hpp. Not thread-safe (one stream).
#include <cstddef>
#include <cstdint>
#include <span>

#include "cuda/ec/point.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/groth16/fixed_base.hpp"

namespace cuzk::cuda {

template <class Curve>
class FixedBase {
 public:
  using HostCurve = typename Curve::HostCurve;
  using Field = typename Curve::Field;
  explicit FixedBase(const groth16::FixedBaseTable<HostCurve>& table);
  // out.size() == scalars.size(); std::invalid_argument otherwise.
  void MulBatch(std::span<const ff::Fr> scalars, std::span<ec::AffinePoint<HostCurve>> out);

 private:
  uint32_t window_bits_ = 0, windows_ = 0;
  DeviceBuffer<AffinePoint<Field>> table_;
  Stream stream_;
};

extern template class FixedBase<G1Gpu>;
extern template class FixedBase<G2Gpu>;
using G1FixedBase = FixedBase<G1Gpu>;
using G2FixedBase = FixedBase<G2Gpu>;

// The setup's seam (groth16::SetupOptions::fixed_base) on the GPU: each call
// uploads its table (8.6 MB in G1 at w = 12) and runs MulBatch.
class GpuFixedBaseBatcher final : public groth16::FixedBaseBatcher {
 public:
  void MulBatchG1(const groth16::FixedBaseTable<ec::G1Curve>& table, std::span<const ff::Fr> scalars,
                  std::span<ec::G1Affine> out) override {
    G1FixedBase(table).MulBatch(scalars, out);
  }
  void MulBatchG2(const groth16::FixedBaseTable<ec::G2Curve>& table, std::span<const ff::Fr> scalars,
                  std::span<ec::G2Affine> out) override {
    G2FixedBase(table).MulBatch(scalars, out);
  }
};

// The kernels (fixed_base_kernels.cu), one thread per scalar / per group.
namespace fixed_base {
template <class F>
void LaunchMul(size_t n, const ff::Fr* scalars, uint32_t window_bits, uint32_t windows, const AffinePoint<F>* table,
               XyzzPoint<F>* out, cudaStream_t stream);
template <class F>
void LaunchToAffine(size_t n, const XyzzPoint<F>* in, AffinePoint<F>* out, cudaStream_t stream);
}  // namespace fixed_base

}  // namespace cuzk::cuda
