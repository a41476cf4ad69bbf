// ShiftedBases (shifted_bases.hpp): the table built on the device.
#include "cuda/msm/shifted_bases.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "cuda/msm/fixed_base.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {

template <class Curve>
size_t ShiftedBases<Curve>::Bytes(size_t n, uint32_t window_bits, uint32_t copies) {
  const uint32_t windows = pippenger::MakeShiftedLayout(window_bits).windows;
  return n * (copies == 0 ? windows : std::min(copies, windows)) * sizeof(Point);
}

template <class Curve>
ShiftedBases<Curve>::ShiftedBases(const DeviceBases<Curve>& bases, size_t n, uint32_t window_bits, uint32_t copies)
    : n_(n) {
  const auto t0 = std::chrono::steady_clock::now();
  const pippenger::Layout layout = pippenger::MakeShiftedLayout(window_bits);
  window_bits_ = layout.window_bits, windows_ = layout.windows;
  if (copies > windows_) {
    throw std::invalid_argument("ShiftedBases: " + std::to_string(copies) + " copies of " + std::to_string(windows_) +
                                " windows");
  }
  copies_ = copies == 0 ? windows_ : copies;
  if (n > bases.size()) {
    throw std::invalid_argument("ShiftedBases: " + std::to_string(n) + " points asked of " +
                                std::to_string(bases.size()) + " bases");
  }
  if (n * copies_ >= size_t(pippenger::kNoBase)) {
    throw std::invalid_argument("ShiftedBases: " + std::to_string(copies_) + " copies of " + std::to_string(n) +
                                " points exceed the 31-bit entry values");
  }
  points_ = DeviceBuffer<Point>(n * copies_);
  if (n == 0) return;
  using Field = typename Curve::Field;
  Stream stream;
  CUZK_CUDA_CHECK(cudaMemcpyAsync(points_.data(), bases.data(), n * sizeof(Point), cudaMemcpyDeviceToDevice, stream));
  // XYZZ results in slices: 2^22 of them take 805 MB (G1) while the table is built.
  constexpr size_t kSlice = size_t(1) << 22;
  DeviceBuffer<XyzzPoint<Field>> doubled(std::min(n, kSlice));
  for (uint32_t w = 1; w < copies_; ++w) {
    for (size_t begin = 0; begin < n; begin += kSlice) {
      const size_t count = std::min(kSlice, n - begin);
      const Point* from = points_.data() + size_t(w - 1) * n + begin;
      pippenger::LaunchShift<Field>(count, window_bits_, from, doubled.data(), stream);
      fixed_base::LaunchToAffine<Field>(count, doubled.data(), points_.data() + size_t(w) * n + begin, stream);
    }
  }
  stream.Synchronize();
  build_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template class ShiftedBases<G1Gpu>;
template class ShiftedBases<G2Gpu>;

}  // namespace cuzk::cuda
