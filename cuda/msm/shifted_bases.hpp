#pragma once
// Bases with their Pippenger window shifts precomputed, for MSMs over fixed
// bases (a Groth16 key's H section): entry w n + i = 2^(c w) P_i for each of
// the W = ceil(256 / c) signed-digit windows of width c.
//
//   cuda::G1ShiftedBases shifted(device_bases, n, pippenger::ShiftedWindowBits(n, 96, room));
//   ec::G1Jacobian r = msm.Run(shifted, scalars, n);   // = msm.Run(device_bases, scalars, n)
//
// With them every window's digits add into one set of 2^(c-1) buckets
// (shifted_bases_steps.hpp, step 1c''): the running-sum reduction runs once instead of
// W times and the host combines nothing, so the width is no longer held back
// by the reduction (2^24 random scalars: c = 22, 12 windows, against 20 and
// 13 windows without; model in msm_plan.hpp, ShiftedWindowBits).
// Costs: W times the bases' device memory (G1 2^24 at c = 22: 12 x 1.6 GB =
// 19.3 GB; a 32 GiB key's 2^27 H bases would need >= 141.7 GB, so they do
// not get a table), and once, a build of (W - 1) c doublings and an affine
// conversion per point and window on the device (ShiftStep, then
// fixed_base::ToAffineStep).
#include <cstddef>
#include <cstdint>

#include "cuda/msm/msm.hpp"
#include "cuda/msm/msm_steps.hpp"
#include "cuda/runtime/device_buffer.hpp"

namespace cuzk::cuda {

template <class Curve>
class ShiftedBases {
 public:
  using Point = AffinePoint<typename Curve::Field>;
  // The table of the first n of `bases` at width window_bits (in
  // [pippenger::kMinWindowBits, pippenger::kMaxShiftedWindowBits]) with
  // `copies` shifts (2^(c j) P for j < copies; 0: all W windows, one bucket
  // set), built on the current device; returns when it is done.
  // std::invalid_argument for a bad width or count of copies, n >
  // bases.size() or copies n >= 2^31 - 1 (entry values are 31-bit).
  ShiftedBases(const DeviceBases<Curve>& bases, size_t n, uint32_t window_bits, uint32_t copies = 0);
  // Device bytes of such a table.
  static size_t Bytes(size_t n, uint32_t window_bits, uint32_t copies = 0);

  size_t size() const { return n_; }  // points per window: the most scalars a call may have
  uint32_t window_bits() const { return window_bits_; }
  uint32_t windows() const { return windows_; }
  uint32_t copies() const { return copies_; }
  uint32_t sets() const { return (windows_ + copies_ - 1) / copies_; }  // bucket sets of an MSM over it
  size_t bytes() const { return points_.bytes(); }
  const Point* data() const { return points_.data(); }
  double build_ms() const { return build_ms_; }  // the constructor's wall time

 private:
  size_t n_ = 0;
  uint32_t window_bits_ = 0, windows_ = 0, copies_ = 0;
  DeviceBuffer<Point> points_;
  double build_ms_ = 0;
};

// G1 (the daemon's H section) and G2 (the benchmarks' G2 MSM, issue 16's
// ratio: 2^22 at c = 20 takes 13 windows' copies, 10.5 GB; the daemon's
// B_g2 MSM is mostly a sum of ones, which a table does not shorten).
extern template class ShiftedBases<G1Gpu>;
extern template class ShiftedBases<G2Gpu>;
using G1ShiftedBases = ShiftedBases<G1Gpu>;
using G2ShiftedBases = ShiftedBases<G2Gpu>;

// The kernels (shifted_bases_kernels.cu), one thread per point / scalar.
namespace pippenger {
// out[i] = 2^c in[i] for i < n (ShiftStep), on `stream`. G1 and G2.
template <class F>
void LaunchShift(size_t n, uint32_t c, const AffinePoint<F>* in, XyzzPoint<F>* out, cudaStream_t stream);
// Step 1c'' (shifted_bases_steps.hpp, ShiftedDigitsStep): n W entries, entry (w, i) at w n + i.
void LaunchShiftedDigits(size_t n, const Layout& layout, size_t stride, uint32_t copies, const Fr* canon,
                         const uint64_t* words, const uint32_t* ranks, uint32_t* keys, uint32_t* vals,
                         cudaStream_t stream);
}  // namespace pippenger

}  // namespace cuzk::cuda
