#include "cuda/msm/g1_msm.hpp"

#include <bit>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/msm/g1_msm_kernels.hpp"
#include "cuda/msm/g1_msm_plan.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::cuda {
namespace {

// Grow-only: frees first so the peak is the new size, not old + new.
template <class T>
void Reserve(DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() >= count) return;
  buffer.Reset();
  buffer = DeviceBuffer<T>(count);
}

}  // namespace

G1DeviceBases::G1DeviceBases(std::span<const ec::G1Affine> points) : points_(points.size()) {
  if (points.empty()) return;
  // Convert in slices through a pinned staging buffer (~64 MiB) so the host
  // never holds a second copy of all points.
  constexpr size_t kSlice = size_t(1) << 19;
  PinnedBuffer<G1Affine> staging(std::min(kSlice, points.size()));
  Stream stream;
  for (size_t begin = 0; begin < points.size(); begin += kSlice) {
    const size_t count = std::min(kSlice, points.size() - begin);
    stream.Synchronize();  // the previous slice has left the staging buffer
    util::ParallelForChunks(count, 0, [&](size_t lo, size_t hi, size_t) {
      for (size_t i = lo; i < hi; ++i) staging[i] = G1AffineFromHost(points[begin + i]);
    });
    points_.CopyFromHost(std::span<const G1Affine>(staging.data(), count), stream, begin);
  }
  stream.Synchronize();
}

ec::G1Jacobian G1Msm::Run(const G1DeviceBases& bases, const ff::Fr* scalars, size_t n, const G1MsmOptions& options,
                          G1MsmTimings* timings) {
  if (n > bases.size()) {
    throw std::invalid_argument("G1Msm::Run: " + std::to_string(n) + " scalars but only " +
                                std::to_string(bases.size()) + " bases");
  }
  return RunImpl(bases, scalars, n, nullptr, nullptr, options, timings);
}

ec::G1Jacobian G1Msm::RunDensity(const G1DeviceBases& bases, const ff::Fr* scalars, const msm::DensityBitmap& density,
                                 const G1MsmOptions& options, G1MsmTimings* timings) {
  const size_t n = density.size();
  const size_t count = density.Count();
  if (count > bases.size()) {
    throw std::invalid_argument("G1Msm::RunDensity: density has " + std::to_string(count) + " set bits but only " +
                                std::to_string(bases.size()) + " bases");
  }
  if (n == 0) return ec::G1Jacobian::Infinity();
  const std::vector<uint64_t>& words = density.words();
  std::vector<uint32_t> ranks(words.size());
  uint32_t rank = 0;
  for (size_t k = 0; k < words.size(); ++k) ranks[k] = rank, rank += uint32_t(std::popcount(words[k]));
  Reserve(words_, words.size());
  Reserve(ranks_, ranks.size());
  // Pageable copies: synchronous with the host, so the vectors may go out of scope after.
  CUZK_CUDA_CHECK(cudaMemcpy(words_.data(), words.data(), words.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  CUZK_CUDA_CHECK(cudaMemcpy(ranks_.data(), ranks.data(), ranks.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  return RunImpl(bases, scalars, n, words_.data(), ranks_.data(), options, timings);
}

ec::G1Jacobian G1Msm::RunImpl(const G1DeviceBases& bases, const ff::Fr* scalars, size_t n, const uint64_t* words,
                              const uint32_t* ranks, const G1MsmOptions& options, G1MsmTimings* timings) {
  if (n == 0) return ec::G1Jacobian::Infinity();
  if (scalars == nullptr) throw std::invalid_argument("G1Msm: null scalars");
  const g1msm::Layout layout = g1msm::MakeLayout(options.window_bits ? options.window_bits : g1msm::DefaultWindowBits(n));
  const size_t m = size_t(layout.windows) * n;
  const size_t chunk = options.chunk ? options.chunk : g1msm::DefaultChunk(m);
  const size_t chunks = (m + chunk - 1) / chunk;
  const uint32_t segment_len = g1msm::DefaultSegmentLen(layout);
  const uint32_t segments = layout.buckets / segment_len;
  const int key_bits = std::bit_width(layout.Sentinel());
  cudaStream_t s = stream_;

  events_[0].Record(s);
  const Fr* dev_scalars = reinterpret_cast<const Fr*>(scalars);
  if (options.scalars_at == ScalarsAt::kHost) {
    Reserve(scalars_, n);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(scalars_.data(), scalars, n * sizeof(Fr), cudaMemcpyHostToDevice, s));
    dev_scalars = scalars_.data();
  }
  events_[1].Record(s);

  Reserve(keys_[0], m), Reserve(keys_[1], m), Reserve(vals_[0], m), Reserve(vals_[1], m);
  g1msm::LaunchDigits(n, layout, dev_scalars, words, ranks, keys_[0].data(), vals_[0].data(), s);
  events_[2].Record(s);

  const size_t temp_bytes = g1msm::SortTempBytes(m, key_bits);
  Reserve(sort_temp_, temp_bytes);
  uint32_t* const key_bufs[2] = {keys_[0].data(), keys_[1].data()};
  uint32_t* const val_bufs[2] = {vals_[0].data(), vals_[1].data()};
  const int sorted = g1msm::SortPairs(sort_temp_.data(), temp_bytes, key_bufs, val_bufs, m, key_bits, s);
  events_[3].Record(s);

  const size_t bucket_count = size_t(layout.windows) * layout.buckets;
  Reserve(buckets_, bucket_count);
  Reserve(partials_, chunks);
  Reserve(partial_keys_, chunks);
  CUZK_CUDA_CHECK(cudaMemsetAsync(buckets_.data(), 0, bucket_count * sizeof(G1Xyzz), s));
  g1msm::LaunchAccumulate(chunks, chunk, m, layout.Sentinel(), key_bufs[sorted], val_bufs[sorted], bases.data(),
                          buckets_.data(), partials_.data(), partial_keys_.data(), s);
  g1msm::LaunchFixup(chunks, layout.Sentinel(), partials_.data(), partial_keys_.data(), buckets_.data(), s);
  events_[4].Record(s);

  Reserve(level_[0], size_t(layout.windows) * segments);
  Reserve(level_[1], size_t(layout.windows) * ((segments + g1msm::kGroupSum - 1) / g1msm::kGroupSum));
  g1msm::LaunchSegments(layout, segment_len, buckets_.data(), level_[0].data(), s);
  int cur = 0;
  for (uint32_t per_window = segments; per_window > 1; per_window = (per_window + g1msm::kGroupSum - 1) / g1msm::kGroupSum) {
    g1msm::LaunchGroupSum(layout.windows, per_window, g1msm::kGroupSum, level_[cur].data(), level_[1 - cur].data(), s);
    cur = 1 - cur;
  }
  if (window_sums_.size() < layout.windows) window_sums_ = PinnedBuffer<G1Xyzz>(layout.windows);
  CUZK_CUDA_CHECK(cudaMemcpyAsync(window_sums_.data(), level_[cur].data(), layout.windows * sizeof(G1Xyzz),
                                  cudaMemcpyDeviceToHost, s));
  events_[5].Record(s);
  events_[5].Synchronize();

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<ec::G1Xyzz> sums(layout.windows);
  for (uint32_t w = 0; w < layout.windows; ++w) sums[w] = G1XyzzToHost(window_sums_[w]);
  const ec::G1Jacobian result = g1msm::CombineWindows(sums, layout.window_bits);
  if (timings) {
    timings->upload_ms = events_[1].ElapsedMsSince(events_[0]);
    timings->digits_ms = events_[2].ElapsedMsSince(events_[1]);
    timings->sort_ms = events_[3].ElapsedMsSince(events_[2]);
    timings->accumulate_ms = events_[4].ElapsedMsSince(events_[3]);
    timings->reduce_ms = events_[5].ElapsedMsSince(events_[4]);
    timings->host_ms = float(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    timings->window_bits = layout.window_bits;
    timings->chunk = chunk;
  }
  return result;
}

}  // namespace cuzk::cuda
