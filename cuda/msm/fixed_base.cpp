#include "cuda/msm/fixed_base.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cuda/runtime/cuda_check.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::cuda {

template <class Curve>
FixedBase<Curve>::FixedBase(const groth16::FixedBaseTable<HostCurve>& table)
    : window_bits_(table.window_bits()), windows_(table.windows()), table_(table.table().size()) {
  std::vector<AffinePoint<Field>> points(table.table().size());
  for (size_t i = 0; i < points.size(); ++i) points[i] = AffineFromHost<Field>(table.table()[i]);
  table_.CopyFromHost(points, stream_);
  stream_.Synchronize();
}

template <class Curve>
void FixedBase<Curve>::MulBatch(std::span<const ff::Fr> scalars, std::span<ec::AffinePoint<HostCurve>> out) {
  if (scalars.size() != out.size()) throw std::invalid_argument("FixedBase::MulBatch: size mismatch");
  if (scalars.empty()) return;
  // Slices bound the device and pinned memory (G2 at 2^22: 1.6 GB of XYZZ
  // sums, 0.8 GB affine) whatever the batch.
  constexpr size_t kSlice = size_t(1) << 22;
  const size_t slice = std::min(kSlice, scalars.size());
  PinnedBuffer<ff::Fr> staged_scalars(slice);
  PinnedBuffer<AffinePoint<Field>> staged_points(slice);
  DeviceBuffer<ff::Fr> dev_scalars(slice);
  DeviceBuffer<XyzzPoint<Field>> sums(slice);
  DeviceBuffer<AffinePoint<Field>> points(slice);
  for (size_t begin = 0; begin < scalars.size(); begin += slice) {
    const size_t count = std::min(slice, scalars.size() - begin);
    std::copy_n(scalars.begin() + begin, count, staged_scalars.data());
    dev_scalars.CopyFromHost(std::span<const ff::Fr>(staged_scalars.data(), count), stream_);
    fixed_base::LaunchMul<Field>(count, dev_scalars.data(), window_bits_, windows_, table_.data(), sums.data(),
                                 stream_);
    fixed_base::LaunchToAffine<Field>(count, sums.data(), points.data(), stream_);
    points.CopyToHost(std::span<AffinePoint<Field>>(staged_points.data(), count), stream_);
    stream_.Synchronize();
    util::ParallelForChunks(count, 0, [&](size_t lo, size_t hi, size_t) {
      for (size_t i = lo; i < hi; ++i) {
        const AffinePoint<Field>& p = staged_points[i];
        out[begin + i] = p.IsInfinity() ? ec::AffinePoint<HostCurve>::Infinity()
                                        : ec::AffinePoint<HostCurve>::FromXY(p.x.ToHost(), p.y.ToHost());
      }
    });
  }
}

template class FixedBase<G1Gpu>;
template class FixedBase<G2Gpu>;

}  // namespace cuzk::cuda
