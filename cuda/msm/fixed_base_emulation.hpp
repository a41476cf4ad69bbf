#pragma once
// The GPU fixed-base multiplication run on the host: the same per-thread
// steps (fixed_base_steps.hpp) in plain loops over the emulated device
// fields, for tests on machines without a GPU.
#include <span>
#include <vector>

#include "cuda/msm/fixed_base_steps.hpp"
#include "cuda/msm/msm.hpp"
#include "engine/groth16/fixed_base.hpp"

namespace cuzk::cuda::fixed_base {

template <class Curve>
std::vector<ec::AffinePoint<typename Curve::HostCurve>> EmulatedMulBatch(
    const groth16::FixedBaseTable<typename Curve::HostCurve>& table, std::span<const ff::Fr> scalars) {
  using F = typename Curve::Field;
  using HostAffine = ec::AffinePoint<typename Curve::HostCurve>;
  std::vector<AffinePoint<F>> dev_table(table.table().size());
  for (size_t i = 0; i < dev_table.size(); ++i) dev_table[i] = AffineFromHost<F>(table.table()[i]);
  std::vector<Fr> dev_scalars(scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) dev_scalars[i] = Fr::FromHost(scalars[i]);
  const size_t n = scalars.size();
  std::vector<XyzzPoint<F>> sums(n);
  std::vector<AffinePoint<F>> points(n);
  for (size_t i = 0; i < n; ++i) {
    FixedBaseMulStep(i, dev_scalars.data(), table.window_bits(), table.windows(), dev_table.data(), sums.data());
  }
  for (size_t t = 0; t * kAffineGroup < n; ++t) ToAffineStep(t, n, sums.data(), points.data());
  std::vector<HostAffine> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = points[i].IsInfinity() ? HostAffine::Infinity()
                                    : HostAffine::FromXY(points[i].x.ToHost(), points[i].y.ToHost());
  }
  return out;
}

}  // namespace cuzk::cuda::fixed_base
