#pragma once
// Definitions of DeviceBases and Msm (msm.hpp), for g1_msm.cpp and
// g2_msm.cpp to instantiate.
#include "cuda/msm/msm.hpp"

#include <bit>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/msm/msm_kernels.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/msm/shifted_bases.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::cuda {
namespace msm_internal {

// Grow-only: frees first so the peak is the new size, not old + new.
template <class T>
void Reserve(DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() >= count) return;
  buffer.Reset();
  buffer = DeviceBuffer<T>(count);
}

// The set bits before each word of a density bitmap (DigitsStep's base index).
inline std::vector<uint32_t> WordRanks(const std::vector<uint64_t>& words) {
  std::vector<uint32_t> ranks(words.size());
  uint32_t rank = 0;
  for (size_t k = 0; k < words.size(); ++k) ranks[k] = rank, rank += uint32_t(std::popcount(words[k]));
  return ranks;
}

}  // namespace msm_internal

template <class Curve>
pippenger::Layout Msm<Curve>::TailPlan::Digits() const {
  return shift_stride > 0 ? pippenger::MakeShiftedLayout(window_bits) : pippenger::MakeLayout(window_bits);
}

template <class Curve>
pippenger::Layout Msm<Curve>::TailPlan::Buckets() const {
  const pippenger::Layout digits = Digits();
  return shift_stride > 0 ? pippenger::BucketSets(digits, shift_copies) : digits;
}

template <class Curve>
DeviceBases<Curve>::DeviceBases(std::span<const ec::AffinePoint<typename Curve::HostCurve>> points)
    : points_(points.size()) {
  if (points.empty()) return;
  // Convert in slices through two pinned staging buffers (~48 MiB each for
  // G1) so the host never holds a second copy of all points, and slice k+1
  // is converted while slice k crosses PCIe (one buffer converted and copied
  // in turn took 12.2 s for a 32 GiB key's 34.5 GB with its circuit: the
  // copy waited for the conversion and the conversion for the copy).
  constexpr size_t kSlice = size_t(1) << 19;
  PinnedBuffer<Point> staging[2] = {PinnedBuffer<Point>(std::min(kSlice, points.size())),
                                    PinnedBuffer<Point>(std::min(kSlice, points.size()))};
  Event copied[2];
  Stream stream;
  for (size_t k = 0, begin = 0; begin < points.size(); ++k, begin += kSlice) {
    const size_t count = std::min(kSlice, points.size() - begin);
    PinnedBuffer<Point>& buffer = staging[k % 2];
    if (k >= 2) copied[k % 2].Synchronize();  // this buffer's last slice has left it
    util::ParallelForChunks(count, 0, [&](size_t lo, size_t hi, size_t) {
      for (size_t i = lo; i < hi; ++i) buffer[i] = AffineFromHost<typename Curve::Field>(points[begin + i]);
    });
    points_.CopyFromHost(std::span<const Point>(buffer.data(), count), stream, begin);
    copied[k % 2].Record(stream.get());
  }
  stream.Synchronize();
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::Run(const DeviceBases<Curve>& bases, const ff::Fr* scalars, size_t n,
                                            const MsmGpuOptions& options, MsmGpuTimings* timings) {
  if (n > bases.size()) {
    throw std::invalid_argument("GPU Msm::Run: " + std::to_string(n) + " scalars but only " +
                                std::to_string(bases.size()) + " bases");
  }
  return RunImpl(bases.data(), scalars, n, nullptr, nullptr, options, timings);
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::Run(const ShiftedBases<Curve>& bases, const ff::Fr* scalars, size_t n,
                                            const MsmGpuOptions& options, MsmGpuTimings* timings) {
  if (n > bases.size()) {
    throw std::invalid_argument("GPU Msm::Run: " + std::to_string(n) + " scalars but shifted bases of " +
                                std::to_string(bases.size()));
  }
  if (options.window_bits != 0 && options.window_bits != bases.window_bits()) {
    throw std::invalid_argument("GPU Msm::Run: window_bits " + std::to_string(options.window_bits) +
                                " asked of shifted bases of width " + std::to_string(bases.window_bits()));
  }
  const Shift shift{.stride = bases.size(), .window_bits = bases.window_bits(), .copies = bases.copies()};
  return RunImpl(bases.data(), scalars, n, nullptr, nullptr, options, timings, &shift);
}

template <class Curve>
void Msm<Curve>::UploadBitmap(const std::vector<uint64_t>& words, const std::vector<uint32_t>& ranks) {
  using msm_internal::Reserve;
  Reserve(words_, words.size());
  Reserve(ranks_, ranks.size());
  // Pageable copies: synchronous with the host, so the vectors may go out of scope after.
  CUZK_CUDA_CHECK(cudaMemcpy(words_.data(), words.data(), words.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  CUZK_CUDA_CHECK(cudaMemcpy(ranks_.data(), ranks.data(), ranks.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunDensity(const DeviceBases<Curve>& bases, const ff::Fr* scalars,
                                                   const msm::DensityBitmap& density, const MsmGpuOptions& options,
                                                   MsmGpuTimings* timings) {
  using msm_internal::Reserve;
  const size_t n = density.size();
  const size_t count = density.Count();
  if (count > bases.size()) {
    throw std::invalid_argument("GPU Msm::RunDensity: density has " + std::to_string(count) + " set bits but only " +
                                std::to_string(bases.size()) + " bases");
  }
  if (n == 0) return Result::Infinity();
  const std::vector<uint64_t>& words = density.words();
  UploadBitmap(words, msm_internal::WordRanks(words));
  return RunImpl(bases.data(), scalars, n, words_.data(), ranks_.data(), options, timings);
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunDensity(const DeviceBases<Curve>& bases, const ff::Fr* scalars,
                                                   const DeviceDensity& density, const MsmGpuOptions& options,
                                                   MsmGpuTimings* timings) {
  if (density.count() > bases.size()) {
    throw std::invalid_argument("GPU Msm::RunDensity: density has " + std::to_string(density.count()) +
                                " set bits but only " + std::to_string(bases.size()) + " bases");
  }
  if (density.size() == 0) return Result::Infinity();
  return RunImpl(bases.data(), scalars, density.size(), density.words(), density.ranks(), options, timings);
}

namespace msm_internal {
constexpr size_t kDefaultStreamSlice = size_t(1) << 22;
inline size_t StreamSlice(const MsmGpuOptions& o) { return o.stream_slice ? o.stream_slice : kDefaultStreamSlice; }
}  // namespace msm_internal

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunStreamed(std::span<const HostPoint> bases, const ff::Fr* scalars, size_t n,
                                                    const MsmGpuOptions& options, MsmGpuTimings* timings) {
  if (n > bases.size()) {
    throw std::invalid_argument("GPU Msm::RunStreamed: " + std::to_string(n) + " scalars but only " +
                                std::to_string(bases.size()) + " bases");
  }
  const size_t per = msm_internal::StreamSlice(options);
  std::vector<Slice> slices;
  for (size_t b = 0; b < n; b += per) {
    const size_t count = std::min(per, n - b);
    slices.push_back({.scalar_begin = b, .scalar_count = count, .base_begin = b, .base_count = count});
  }
  return RunSlices(bases, scalars, slices, nullptr, nullptr, options, timings);
}

// Slices of whole density words holding at most `per` set bits each (per >= 64).
template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunDensityStreamed(std::span<const HostPoint> bases, const ff::Fr* scalars,
                                                           const msm::DensityBitmap& density,
                                                           const MsmGpuOptions& options, MsmGpuTimings* timings) {
  using msm_internal::Reserve;
  const size_t n = density.size();
  if (density.Count() > bases.size()) {
    throw std::invalid_argument("GPU Msm::RunDensityStreamed: density has " + std::to_string(density.Count()) +
                                " set bits but only " + std::to_string(bases.size()) + " bases");
  }
  if (n == 0) return Result::Infinity();
  const size_t per = std::max<size_t>(msm_internal::StreamSlice(options), 64);
  const std::vector<uint64_t>& words = density.words();
  // Each word's rank relative to the start of its slice (DigitsStep indexes
  // the slice's staging buffer).
  std::vector<uint32_t> slice_ranks(words.size());
  std::vector<Slice> slices;
  size_t base = 0;
  for (size_t w = 0; w < words.size(); ++w) {
    const size_t bits = size_t(std::popcount(words[w]));
    if (slices.empty() || slices.back().base_count + bits > per) {
      slices.push_back({.scalar_begin = 64 * w, .base_begin = base, .word_begin = w});
    }
    Slice& sl = slices.back();
    slice_ranks[w] = uint32_t(sl.base_count);
    sl.base_count += bits;
    sl.scalar_count = std::min(n, 64 * (w + 1)) - sl.scalar_begin;
    base += bits;
  }
  UploadBitmap(words, slice_ranks);
  return RunSlices(bases, scalars, slices, words_.data(), ranks_.data(), options, timings);
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunSlices(std::span<const HostPoint> bases, const ff::Fr* scalars,
                                                  const std::vector<Slice>& slices, const uint64_t* words,
                                                  const uint32_t* slice_ranks, const MsmGpuOptions& options,
                                                  MsmGpuTimings* timings) {
  using msm_internal::Reserve;
  if (slices.empty()) return Result::Infinity();
  size_t widest = 0;
  for (const Slice& sl : slices) widest = std::max(widest, sl.base_count);
  for (int k = 0; k < 2; ++k) {
    if (host_slices_[k].size() < widest) host_slices_[k] = PinnedBuffer<Point>(widest);
    Reserve(device_slices_[k], widest);
  }
  auto convert = [&](size_t k) {
    const Slice& sl = slices[k];
    Point* out = host_slices_[k % 2].data();
    util::ParallelForChunks(sl.base_count, 0, [&](size_t lo, size_t hi, size_t) {
      for (size_t i = lo; i < hi; ++i) out[i] = AffineFromHost<Field>(bases[sl.base_begin + i]);
    });
  };
  auto upload = [&](size_t k) {
    const int b = int(k % 2);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(device_slices_[b].data(), host_slices_[b].data(),
                                    slices[k].base_count * sizeof(Point), cudaMemcpyHostToDevice, copy_stream_));
    copied_[b].Record(copy_stream_);
  };
  const size_t count = slices.size();
  int device = 0;
  CUZK_CUDA_CHECK(cudaGetDevice(&device));  // the conversion thread waits on this device's events
  convert(0);
  upload(0);
  if (count > 1) convert(1);
  MsmGpuTimings total;
  Result result = Result::Infinity();
  for (size_t k = 0; k < count; ++k) {
    const int b = int(k % 2);
    // device_slices_[1 - b] was read by slice k - 1, whose sums are done.
    if (k + 1 < count) upload(k + 1);
    // Slice k + 2 goes into host_slices_[b] once slice k's copy has left it.
    std::future<void> next;
    if (k + 2 < count) {
      next = std::async(std::launch::async, [&, k, b, device] {
        CUZK_CUDA_CHECK(cudaSetDevice(device));
        copied_[b].Synchronize();
        convert(k + 2);
      });
    }
    const Slice& sl = slices[k];
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(stream_, copied_[b].get(), 0));
    MsmGpuTimings t;
    result = result + RunImpl(device_slices_[b].data(), scalars + sl.scalar_begin, sl.scalar_count,
                              words ? words + sl.word_begin : nullptr, words ? slice_ranks + sl.word_begin : nullptr,
                              options, &t);
    if (next.valid()) {
      const auto w0 = std::chrono::steady_clock::now();
      next.get();
      total.staging_wait_ms +=
          float(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
    }
    total.upload_ms += t.upload_ms, total.digits_ms += t.digits_ms, total.ones_ms += t.ones_ms;
    total.sort_ms += t.sort_ms, total.accumulate_ms += t.accumulate_ms, total.reduce_ms += t.reduce_ms;
    total.host_ms += t.host_ms, total.ones += t.ones, total.tail += t.tail;
    total.window_bits = t.window_bits, total.chunk = t.chunk, total.batch = t.batch;
    total.window_major = t.window_major, total.segment_len = t.segment_len, total.mul_pipes = t.mul_pipes;
  }
  total.slices = count;
  if (timings) *timings = total;
  return result;
}

template <class Curve>
bool Msm<Curve>::SumOnes(const Point* bases, size_t n, const uint64_t* words, const uint32_t* ranks) {
  using msm_internal::Reserve;
  cudaStream_t s = ones_stream_;
  CUZK_CUDA_CHECK(cudaStreamWaitEvent(s, events_[6].get(), 0));  // the flags from classify
  Reserve(ones_scan_temp_, pippenger::ScanTempBytes(n));
  const size_t count = pippenger::ExclusiveSumTotal(ones_scan_temp_.data(), ones_scan_temp_.size(), ones_flags_.data(),
                                                    ones_offsets_.data(), n, s);
  last_ones_ = count;
  if (count == 0) return false;
  Reserve(ones_indices_, count);
  pippenger::LaunchOnesIndex(n, ones_flags_.data(), ones_offsets_.data(), words, ranks, ones_indices_.data(), s);
  const size_t chunk = pippenger::OnesChunk(count);
  const size_t chunks = (count + chunk - 1) / chunk;
  Reserve(ones_level_[0], chunks);
  Reserve(ones_level_[1], (chunks + pippenger::kGroupSum - 1) / pippenger::kGroupSum);
  pippenger::LaunchOnesSum(chunks, chunk, count, ones_indices_.data(), bases, ones_level_[0].data(), s);
  int cur = 0;
  for (size_t left = chunks; left > 1; left = (left + pippenger::kGroupSum - 1) / pippenger::kGroupSum) {
    pippenger::LaunchGroupSum(1, uint32_t(left), pippenger::kGroupSum, ones_level_[cur].data(),
                              ones_level_[1 - cur].data(), s);
    cur = 1 - cur;
  }
  if (ones_sum_.size() < 1) ones_sum_ = PinnedBuffer<XyzzPoint<Field>>(1);
  CUZK_CUDA_CHECK(
      cudaMemcpyAsync(ones_sum_.data(), ones_level_[cur].data(), sizeof(XyzzPoint<Field>), cudaMemcpyDeviceToHost, s));
  return true;
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunImpl(const Point* bases, const ff::Fr* scalars, size_t n,
                                                const uint64_t* words, const uint32_t* ranks,
                                                const MsmGpuOptions& options, MsmGpuTimings* timings,
                                                const Shift* shift) {
  try {
    return RunQueued(bases, scalars, n, words, ranks, options, timings, shift);
  } catch (...) {
    // Kernels already queued on either stream may still read the scalars,
    // bitmap, ranks or bases that the caller's next call overwrites.
    cudaStreamSynchronize(stream_);
    cudaStreamSynchronize(ones_stream_);
    cudaStreamSynchronize(copy_stream_);  // upload batches' copies and classification
    throw;
  }
}

template <class Curve>
typename Msm<Curve>::Result Msm<Curve>::RunQueued(const Point* bases, const ff::Fr* scalars, size_t n,
                                                  const uint64_t* words, const uint32_t* ranks,
                                                  const MsmGpuOptions& options, MsmGpuTimings* timings,
                                                  const Shift* shift) {
  using msm_internal::Reserve;
  using HostCurve = typename Curve::HostCurve;
  if (n == 0) return Result::Infinity();
  if (scalars == nullptr) throw std::invalid_argument("GPU Msm: null scalars");
  if (options.window_bits && !shift) pippenger::MakeLayout(options.window_bits);  // reject a bad width before any work
  constexpr bool kG1 = std::is_same_v<Field, Fp>;
  if (options.batch > 1 && (!kG1 || (options.batch != 8 && options.batch != 16 && options.batch != 32))) {
    throw std::invalid_argument("GPU Msm: batch must be -1, 0 or 1" + std::string(kG1 ? ", 8, 16 or 32" : " for G2") +
                                ", got " + std::to_string(options.batch));
  }
  if (options.batch < -1) throw std::invalid_argument("GPU Msm: batch must be >= -1");
  if (options.window_major < -1 || options.window_major > 1) {
    throw std::invalid_argument("GPU Msm: window_major must be -1, 0 or 1, got " +
                                std::to_string(options.window_major));
  }
  if (options.segment_len != 0 && !std::has_single_bit(options.segment_len)) {
    throw std::invalid_argument("GPU Msm: segment_len must be 0 or a power of two, got " +
                                std::to_string(options.segment_len));
  }
  const bool fp64 = options.mul_pipes != MulPipes::kInteger;
  if (options.mul_pipes != MulPipes::kInteger && options.mul_pipes != MulPipes::kFp64 &&
      options.mul_pipes != MulPipes::kBoth) {
    throw std::invalid_argument("GPU Msm: mul_pipes must be kInteger, kFp64 or kBoth");
  }
  if (fp64 && !kG1) throw std::invalid_argument("GPU Msm: FP64 multiplication pipes are built for G1 only");
  if (fp64 && options.batch > 1) {
    throw std::invalid_argument(
        "GPU Msm: FP64 multiplication pipes are built for the XYZZ accumulation (batch 0 or 1)");
  }
  cudaStream_t s = stream_;

  // Host scalars over shifted bases may cross in batches, each summed
  // while the next one's copy runs (msm_plan.hpp, UploadBatchRanges).
  const bool host_scalars = options.scalars_at == ScalarsAt::kHost;
  std::vector<pippenger::ScalarRange> upload = {{0, n}};
  if (shift && host_scalars && words == nullptr) {
    upload = pippenger::UploadBatchRanges(
        n, options.upload_batches ? options.upload_batches : pippenger::DefaultUploadBatches(n, true, true));
  }
  const bool batched_upload = upload.size() > 1;

  events_[0].Record(s);
  const Fr* dev_scalars = reinterpret_cast<const Fr*>(scalars);
  if (host_scalars) {
    Reserve(scalars_, n);
    if (!batched_upload) {
      CUZK_CUDA_CHECK(cudaMemcpyAsync(scalars_.data(), scalars, n * sizeof(Fr), cudaMemcpyHostToDevice, s));
    }
    dev_scalars = scalars_.data();
  }
  if (!batched_upload) events_[1].Record(s);  // else after the first batch's copy

  // Step 1: canonical scalars (and with the split, the 1-scalars flagged and
  // summed apart: step 1'), the window width from the count of scalars >= 2,
  // then only the nonzero digits as entries (small read-backs in between).
  Reserve(canon_, n), Reserve(counts_, n), Reserve(offsets_, n);
  Reserve(scan_temp_, pippenger::ScanTempBytes(n));
  uint32_t* ones = nullptr;
  if (options.split_ones) Reserve(ones_flags_, n), Reserve(ones_offsets_, n), ones = ones_flags_.data();
  last_ones_ = 0;
  bool have_ones = false;
  size_t n_big = n;  // batched: counted after the batches (shifted bases' layout does not depend on it)
  if (!batched_upload) {
    pippenger::LaunchClassify(n, dev_scalars, words, canon_.data(), counts_.data(), ones, s);
    events_[6].Record(s);
    // The ones sum and the tail below share only the read-only bases: the
    // ones run on their own stream, beside the tail's kernels.
    have_ones = options.split_ones && SumOnes(bases, n, words, ranks);
    events_[7].Record(ones_stream_);
    n_big = pippenger::ExclusiveSumTotal(scan_temp_.data(), scan_temp_.size(), counts_.data(), offsets_.data(), n, s);
  }
  // Shifted bases: their width, every window's slots (as window-major), and
  // their bucket sets (`sums`: one for a full table) for steps 3-6.
  const pippenger::Layout layout =
      shift ? pippenger::MakeShiftedLayout(shift->window_bits)
            : pippenger::MakeLayout(options.window_bits ? options.window_bits : pippenger::DefaultWindowBits(n_big));
  const pippenger::Layout sums = shift ? pippenger::BucketSets(layout, shift->copies) : layout;
  const bool window_major =
      shift || (options.window_major < 0 ? pippenger::WindowMajorDigits(n, n_big) : options.window_major == 1);
  size_t m = n * layout.windows;  // window-major: a slot per window, no count needed
  if (!window_major) {
    pippenger::LaunchCountDigits(n, layout, canon_.data(), counts_.data(), s);
    m = pippenger::ExclusiveSumTotal(scan_temp_.data(), scan_temp_.size(), counts_.data(), offsets_.data(), n, s);
  }
  if (m > size_t(UINT32_MAX)) throw std::invalid_argument("GPU Msm: more than 2^32 - 1 digit entries");
  // The FP64 pipes have only the XYZZ accumulation: the default batch is 0 there.
  const uint32_t batch = options.batch < 0   ? (fp64 ? 0 : pippenger::DefaultBatch(m, kG1))
                         : options.batch > 1 ? options.batch
                                             : 0;
  const size_t chunk = options.chunk ? options.chunk
                       : batch       ? pippenger::BatchedChunk(std::max<size_t>(m, 1), batch)
                                     : pippenger::DefaultChunk(std::max<size_t>(m, 1), sums);
  // A fixed length longer than this call's window (its width follows the
  // scalars) runs the whole window in one thread.
  const uint32_t segment_len = options.segment_len ? std::min(options.segment_len, sums.buckets)
                                                   : pippenger::DefaultSegmentLen(sums, /*g2=*/!kG1);
  const TailPlan plan{.window_bits = layout.window_bits,
                      .m = m,
                      .chunk = chunk,
                      .batch = batch,
                      .mul_pipes = options.mul_pipes,
                      .window_major = window_major,
                      .segment_len = segment_len,
                      .shift_stride = shift ? shift->stride : 0,
                      .shift_copies = shift ? shift->copies : 0};
  size_t last_chunk = chunk;  // upload batches: the last (largest) batch's
  if (batched_upload) {
    last_chunk = AccumulateUploadBatches(bases, scalars, upload, plan, options.chunk, options.split_ones);
    // The flags of every batch are in once the copy stream's last classify
    // ran (events_[6]); the host waits for the copies here, not the sums.
    have_ones = options.split_ones && SumOnes(bases, n, nullptr, nullptr);
    events_[7].Record(ones_stream_);
    ReduceBuckets(plan);
    n_big = pippenger::ExclusiveSumTotal(scan_temp_.data(), scan_temp_.size(), counts_.data(), offsets_.data(), n, s);
  } else if (m > 0) {
    RunTail(bases, n, plan, words, ranks);
  }
  events_[5].Record(s);
  events_[5].Synchronize();
  events_[7].Synchronize();

  const auto t0 = std::chrono::steady_clock::now();
  Result result = Result::Infinity();
  if (m > 0) {
    std::vector<ec::XyzzPoint<HostCurve>> window_sums(sums.windows);  // shifted: one per bucket set
    for (uint32_t w = 0; w < sums.windows; ++w) window_sums[w] = XyzzToHost<HostCurve>(window_sums_[w]);
    // Shifted: the sets are c copies bits apart (one set: nothing to combine).
    result = pippenger::CombineWindows<HostCurve>(window_sums,
                                                  shift ? layout.window_bits * shift->copies : layout.window_bits);
  }
  if (have_ones) result = result + XyzzToHost<HostCurve>(ones_sum_[0]).ToJacobian();
  if (timings) {
    timings->upload_ms = events_[1].ElapsedMsSince(events_[0]);
    timings->ones_ms = options.split_ones ? events_[7].ElapsedMsSince(events_[6]) : 0;
    timings->upload_batches = uint32_t(upload.size());
    if (batched_upload) {
      // Batches interleave their stages: one span from the first copy on.
      timings->digits_ms = timings->sort_ms = 0;
      timings->accumulate_ms = events_[4].ElapsedMsSince(events_[1]);
      timings->reduce_ms = events_[5].ElapsedMsSince(events_[4]);
    } else if (m > 0) {
      timings->digits_ms = events_[2].ElapsedMsSince(events_[1]);  // with the ones running beside it
      timings->sort_ms = events_[3].ElapsedMsSince(events_[2]);
      timings->accumulate_ms = events_[4].ElapsedMsSince(events_[3]);
      timings->reduce_ms = events_[5].ElapsedMsSince(events_[4]);
    } else {
      timings->digits_ms = events_[5].ElapsedMsSince(events_[1]);
      timings->sort_ms = timings->accumulate_ms = timings->reduce_ms = 0;
    }
    timings->host_ms = float(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    timings->window_bits = layout.window_bits;
    timings->chunk = last_chunk;
    timings->window_major = window_major;
    timings->shifted = shift != nullptr;
    timings->segment_len = segment_len;
    timings->batch = batch;
    timings->mul_pipes = options.mul_pipes;
    timings->ones = last_ones_;
    timings->tail = n_big;
  }
  return result;
}

template <class Curve>
size_t Msm<Curve>::AccumulateUploadBatches(const Point* bases, const ff::Fr* scalars,
                                           const std::vector<pippenger::ScalarRange>& batches, const TailPlan& plan,
                                           size_t fixed_chunk, bool split_ones) {
  using msm_internal::Reserve;
  {
    cudaStream_t s = stream_, c = copy_stream_;
    const pippenger::Layout layout = plan.Digits(), sums = plan.Buckets();
    const size_t bucket_count = size_t(sums.windows) * sums.buckets;
    // Each batch's plan, and every buffer at its largest before the first
    // copy: growing one between batches (cudaFree) would wait for the device.
    std::vector<TailPlan> plans(batches.size(), plan);
    size_t widest_m = 0, most_chunks = 0, sort_bytes = 0;
    for (size_t b = 0; b < batches.size(); ++b) {
      TailPlan& p = plans[b];
      p.m = batches[b].count * layout.windows;
      p.chunk = fixed_chunk ? fixed_chunk
                : p.batch   ? pippenger::BatchedChunk(p.m, p.batch)
                            : pippenger::DefaultChunk(p.m, sums);
      widest_m = std::max(widest_m, p.m);
      most_chunks = std::max(most_chunks, (p.m + p.chunk - 1) / p.chunk);
      const size_t segment = std::min(size_t(plan.shift_copies) * batches[b].count, p.m);
      sort_bytes = std::max(sort_bytes, pippenger::SortTempBytes(segment, int(layout.window_bits) - 1));
    }
    for (int k = 0; k < 2; ++k) Reserve(keys_[k], widest_m), Reserve(vals_[k], widest_m);
    Reserve(sort_temp_, sort_bytes);
    Reserve(partials_, most_chunks), Reserve(partial_keys_, most_chunks);
    Reserve(buckets_, bucket_count), Reserve(more_buckets_, bucket_count);
    // And what SumOnes and ReduceBuckets reserve after the batches are queued.
    size_t n = 0;
    for (const auto& r : batches) n += r.count;
    if (split_ones) Reserve(ones_scan_temp_, pippenger::ScanTempBytes(n));
    ReserveReduction(plan);
    while (classified_.size() < batches.size()) classified_.emplace_back(cudaEventDisableTiming);

    // Copy stream: batch b's scalars, then their canonical form, counts and
    // flags (the same per-scalar step as one call's; disjoint ranges).
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(c, events_[0].get(), 0));
    uint32_t* ones = split_ones ? ones_flags_.data() : nullptr;
    auto copy = [&](size_t b) {
      const pippenger::ScalarRange r = batches[b];
      CUZK_CUDA_CHECK(cudaMemcpyAsync(scalars_.data() + r.begin, scalars + r.begin, r.count * sizeof(Fr),
                                      cudaMemcpyHostToDevice, c));
      if (b == 0) events_[1].Record(c);
      pippenger::LaunchClassify(r.count, scalars_.data() + r.begin, nullptr, canon_.data() + r.begin,
                                counts_.data() + r.begin, ones ? ones + r.begin : nullptr, c);
      classified_[b].Record(c);
    };
    // Batch b's sums are queued before batch b + 1's copy: a copy from
    // pageable memory holds the host until it is staged.
    copy(0);
    for (size_t b = 0; b < batches.size(); ++b) {
      CUZK_CUDA_CHECK(cudaStreamWaitEvent(s, classified_[b].get(), 0));
      const size_t at = batches[b].begin;
      AccumulateInto(bases + at, batches[b].count, plans[b], nullptr, nullptr, canon_.data() + at,
                     b == 0 ? buckets_.data() : more_buckets_.data());
      if (b > 0) pippenger::LaunchAddBuckets(bucket_count, more_buckets_.data(), buckets_.data(), s);
      if (b + 1 < batches.size()) copy(b + 1);
    }
    events_[6].Record(c);  // every batch classified: SumOnes may start
    events_[4].Record(s);  // every batch's buckets added in
    return plans.back().chunk;
  }
}

template <class Curve>
void Msm<Curve>::RunTail(const Point* bases, size_t n, const TailPlan& plan, const uint64_t* words,
                         const uint32_t* ranks) {
  using msm_internal::Reserve;
  const pippenger::Layout sums = plan.Buckets();
  Reserve(buckets_, size_t(sums.windows) * sums.buckets);
  AccumulateInto(bases, n, plan, words, ranks, canon_.data(), buckets_.data());
  ReduceBuckets(plan);
}

template <class Curve>
void Msm<Curve>::AccumulateInto(const Point* bases, size_t n, const TailPlan& plan, const uint64_t* words,
                                const uint32_t* ranks, const Fr* canon, XyzzPoint<Field>* buckets) {
  using msm_internal::Reserve;
  cudaStream_t s = stream_;
  const bool shifted = plan.shift_stride > 0;
  const pippenger::Layout layout = plan.Digits(), sums = plan.Buckets();
  const size_t m = plan.m, chunk = plan.chunk;
  const uint32_t batch = plan.batch;
  const MulPipes mul_pipes = plan.mul_pipes;
  const bool window_major = plan.window_major;
  const size_t chunks = (m + chunk - 1) / chunk;
  const int key_bits = std::bit_width(layout.Sentinel());  // the compact layout's
  Reserve(keys_[0], m), Reserve(keys_[1], m), Reserve(vals_[0], m), Reserve(vals_[1], m);
  if (shifted) {
    pippenger::LaunchShiftedDigits(n, layout, plan.shift_stride, plan.shift_copies, canon, words, ranks,
                                   keys_[0].data(), vals_[0].data(), s);
  } else if (window_major) {
    pippenger::LaunchWindowDigits(n, layout, canon, words, ranks, keys_[0].data(), vals_[0].data(), s);
  } else {
    pippenger::LaunchDigits(n, layout, canon, words, ranks, offsets_.data(), keys_[0].data(), vals_[0].data(), s);
  }
  events_[2].Record(s);

  // Window-major: each window's n entries apart on c - 1 bits (their keys
  // share the bits above). Shifted: each bucket set's entries (`copies`
  // windows' slots, consecutive; the last set may have fewer) the same way.
  // Compact: all m on every key bit.
  const size_t segment = shifted ? size_t(plan.shift_copies) * n : n;
  const size_t temp_bytes = window_major ? pippenger::SortTempBytes(std::min(segment, m), int(layout.window_bits) - 1)
                                         : pippenger::SortTempBytes(m, key_bits);
  Reserve(sort_temp_, temp_bytes);
  uint32_t* const key_bufs[2] = {keys_[0].data(), keys_[1].data()};
  uint32_t* const val_bufs[2] = {vals_[0].data(), vals_[1].data()};
  int sorted = -1;
  if (shifted) {
    for (size_t at = 0; at < m; at += segment) {
      const size_t count = std::min(segment, m - at);
      uint32_t* const k[2] = {key_bufs[0] + at, key_bufs[1] + at};
      uint32_t* const v[2] = {val_bufs[0] + at, val_bufs[1] + at};
      const int got = pippenger::SortPairs(sort_temp_.data(), temp_bytes, k, v, count, int(layout.window_bits) - 1, s);
      if (sorted < 0) sorted = got;
      if (got != sorted) {
        // A shorter last set can take another number of passes (CUB sorts a
        // small input in one tile): move it next to the others.
        CUZK_CUDA_CHECK(cudaMemcpyAsync(k[sorted], k[got], count * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
        CUZK_CUDA_CHECK(cudaMemcpyAsync(v[sorted], v[got], count * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
      }
    }
  } else if (window_major) {
    sorted = pippenger::SortPairsByWindow(sort_temp_.data(), temp_bytes, key_bufs, val_bufs, n, layout, s);
  } else {
    sorted = pippenger::SortPairs(sort_temp_.data(), temp_bytes, key_bufs, val_bufs, m, key_bits, s);
  }
  events_[3].Record(s);

  const size_t bucket_count = size_t(sums.windows) * sums.buckets;
  Reserve(partials_, chunks);
  Reserve(partial_keys_, chunks);
  CUZK_CUDA_CHECK(cudaMemsetAsync(buckets, 0, bucket_count * sizeof(XyzzPoint<Field>), s));
  if (mul_pipes != MulPipes::kInteger) {
    if constexpr (std::is_same_v<Field, Fp>) {
      // FpDfma and FpBoth have Fp's bytes: the same buffers, other
      // multiplications (batch is 0: checked above).
      auto launch = [&]<class D>() {
        const auto* dbases = reinterpret_cast<const AffinePoint<D>*>(bases);
        auto* dbuckets = reinterpret_cast<XyzzPoint<D>*>(buckets);
        auto* dpartials = reinterpret_cast<XyzzPoint<D>*>(partials_.data());
        pippenger::LaunchAccumulate(chunks, chunk, m, sums.Sentinel(), key_bufs[sorted], val_bufs[sorted], dbases,
                                    dbuckets, dpartials, partial_keys_.data(), s);
      };
      if (mul_pipes == MulPipes::kFp64) {
        launch.template operator()<FpDfma>();
      } else {
        launch.template operator()<FpBoth>();
      }
    }
  } else if (batch) {
    pippenger::LaunchAccumulateBatched(batch, chunks, chunk, m, sums.Sentinel(), key_bufs[sorted], val_bufs[sorted],
                                       bases, buckets, partials_.data(), partial_keys_.data(), s);
  } else {
    pippenger::LaunchAccumulate(chunks, chunk, m, sums.Sentinel(), key_bufs[sorted], val_bufs[sorted], bases, buckets,
                                partials_.data(), partial_keys_.data(), s);
  }
  pippenger::LaunchFixup(chunks, sums.Sentinel(), partials_.data(), partial_keys_.data(), buckets, s);
  events_[4].Record(s);
}

template <class Curve>
void Msm<Curve>::ReserveReduction(const TailPlan& plan) {
  using msm_internal::Reserve;
  const pippenger::Layout sums = plan.Buckets();
  const uint32_t segments = sums.buckets / plan.segment_len;
  Reserve(level_[0], size_t(sums.windows) * segments);
  Reserve(level_[1], size_t(sums.windows) * ((segments + pippenger::kGroupSum - 1) / pippenger::kGroupSum));
}

template <class Curve>
void Msm<Curve>::ReduceBuckets(const TailPlan& plan) {
  cudaStream_t s = stream_;
  const pippenger::Layout sums = plan.Buckets();
  const uint32_t segment_len = plan.segment_len;
  const uint32_t segments = sums.buckets / segment_len;
  ReserveReduction(plan);
  pippenger::LaunchSegments(sums, segment_len, buckets_.data(), level_[0].data(), s);
  int cur = 0;
  for (uint32_t per_window = segments; per_window > 1;
       per_window = (per_window + pippenger::kGroupSum - 1) / pippenger::kGroupSum) {
    pippenger::LaunchGroupSum(sums.windows, per_window, pippenger::kGroupSum, level_[cur].data(),
                              level_[1 - cur].data(), s);
    cur = 1 - cur;
  }
  if (window_sums_.size() < sums.windows) window_sums_ = PinnedBuffer<XyzzPoint<Field>>(sums.windows);
  CUZK_CUDA_CHECK(cudaMemcpyAsync(window_sums_.data(), level_[cur].data(), sums.windows * sizeof(XyzzPoint<Field>),
                                  cudaMemcpyDeviceToHost, s));
}

}  // namespace cuzk::cuda
