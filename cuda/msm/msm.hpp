#pragma once
// Multi-scalar multiplication on the GPU, G1 and G2 of BLS12-381:
// sum_i s_i P_i with the bases resident in device memory across calls.
//
// Usage:
//   cuda::G1DeviceBases bases(points);      // upload once: 96 B per G1 point (2^26: 6 GiB), 192 B per G2
//   cuda::G1Msm msm;                        // owns the scratch memory and a stream; reuse it
//   ec::G1Jacobian r = msm.Run(bases, scalars, n);              // scalars in host memory
//   ec::G1Jacobian d = msm.RunDensity(bases, scalars, density); // Groth16 A/B sections
//   ec::G1Jacobian e = msm.RunStreamed(points, scalars, n);     // bases left in host memory
//   ec::G1Jacobian f = msm.Run(shifted, scalars, n);            // window shifts precomputed (shifted_bases.hpp)
//   (cuda::G2DeviceBases / cuda::G2Msm the same with ec::G2 types.)
//
// Scalars are ff::Fr (Montgomery form, 32 B each) in host memory (pinned for
// ~55 GB/s; pageable works at ~8 GB/s) or, with scalars_at = kDevice, in
// device memory. The result is exact: equal to msm::MsmG1 / MsmG2 as a group
// element. Algorithm and stage costs: cuda/msm/msm_steps.hpp; measurements:
// docs/perf/gpu.md. An Msm is not thread-safe (one stream, one scratch set).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/density_bitmap.hpp"

namespace cuzk::cuda {
namespace pippenger {
struct Layout;       // msm_steps.hpp
struct ScalarRange;  // msm_plan.hpp
}  // namespace pippenger
template <class Curve>
class ShiftedBases;  // shifted_bases.hpp

// A curve as the GPU MSM sees it: the device field of its coordinates and
// the engine curve of the host-side inputs and results.
struct G1Gpu {
  using Field = Fp;
  using HostCurve = ec::G1Curve;
};
struct G2Gpu {
  using Field = Fp2;
  using HostCurve = ec::G2Curve;
};

// Affine points in device memory (infinity stored as (0, 0)).
template <class Curve>
class DeviceBases {
 public:
  using Point = AffinePoint<typename Curve::Field>;
  explicit DeviceBases(std::span<const ec::AffinePoint<typename Curve::HostCurve>> points);
  // Room for `count` points that the caller writes before any MSM reads
  // them (cuda/groth16/key_image_upload.hpp: straight from a key image).
  struct Unfilled {};
  DeviceBases(size_t count, Unfilled) : points_(count) {}
  size_t size() const { return points_.size(); }
  const Point* data() const { return points_.data(); }
  Point* mutable_data() { return points_.data(); }

 private:
  DeviceBuffer<Point> points_;
};

enum class ScalarsAt { kHost, kDevice };

struct MsmGpuOptions {
  ScalarsAt scalars_at = ScalarsAt::kHost;
  uint32_t window_bits = 0;  // 0: chosen from the scalars >= 2 (pippenger::DefaultWindowBits); else 4..22
  size_t chunk = 0;          // sorted entries per accumulation thread; 0: default
  // The bit-witness split (msm_steps.hpp, step 1'): scalars equal to 1 are
  // summed apart, Pippenger runs on the rest. false: they go through the
  // digits as one entry each (the compact-digit path, kept to measure against).
  bool split_ones = true;
  // Digit entries (step 1c): -1 as pippenger::WindowMajorDigits chooses; 0:
  // compact (nonzero digits only, one sort on all key bits); 1: window-major
  // (every window's slot, each window sorted apart on c - 1 bits).
  int window_major = -1;
  // Streamed calls (RunStreamed, RunDensityStreamed): bases per slice; 0: 2^22
  // (G1: 384 MiB per staging buffer, G2: 768 MiB; two on the host, pinned, two on the device).
  size_t stream_slice = 0;
  // Bucket accumulation (step 3): 0 or 1: one XYZZ sum per chunk, mixed
  // additions (8M + 2S each); 8, 16 or 32 (G1 only): that many chunks per
  // thread summed in affine form, their divisions sharing one safegcd
  // inversion per step (~6M + 33M / batch each; msm_steps.hpp,
  // AccumulateBatchedStep). -1: chosen by pippenger::DefaultBatch.
  int batch = -1;
  // The pipes of the G1 XYZZ accumulation's multiplications (same results;
  // timed in `cuzk-gpu-bench msm --dfma 0,1,2`, the MulPipes values):
  // kInteger: Mul; kFp64: MulDfma, the limb products on the FP64 pipe
  // (FpDfma); kBoth: MulDfma for 4 of a mixed addition's 10 products (FpBoth).
  // kFp64 and kBoth are slower on the H200 (docs/perf/gpu.md, session 11):
  // kept off, for the kernel work in docs/perf/msm-next.md. With either, the
  // default batch is 0 (they have no batched accumulation).
  MulPipes mul_pipes = MulPipes::kInteger;
  // Buckets per running-sum thread (step 5): 0: pippenger::DefaultSegmentLen;
  // else a power of two (more than a window's buckets: the whole window).
  uint32_t segment_len = 0;
  // Host scalars over shifted bases: copied in this many batches, batch
  // k + 1's copy under batch k's sums (msm_plan.hpp, UploadBatchRanges: the
  // first an eighth of n). 0: pippenger::DefaultUploadBatches (2 from 2^20
  // scalars); 1: one copy before any work. Ignored elsewhere.
  uint32_t upload_batches = 0;
};

// Per-stage device times of the last call (CUDA events), milliseconds.
struct MsmGpuTimings {
  float upload_ms = 0;      // scalars H2D (0 for device scalars)
  float digits_ms = 0;      // canonical form, window choice, counted and written digit entries
  float ones_ms = 0;        // the split's 1-scalars: prefix sum, indices, sums (0 without the split), on a
                            // second stream beside digits..reduce, so the stage times overlap
  float sort_ms = 0;        // radix sort of (bucket, base) pairs
  float accumulate_ms = 0;  // bucket sums (memset, chunks, fixup)
  float reduce_ms = 0;      // running sums per window, window sums, D2H
  float host_ms = 0;        // window combination on the host (wall clock)
  uint32_t window_bits = 0;
  size_t chunk = 0;
  bool window_major = false;                // the digit layout used
  bool shifted = false;                     // over shifted bases: one window's buckets
  uint32_t segment_len = 0;                 // buckets per running-sum thread, as used
  uint32_t batch = 0;                       // the accumulation used: 0 = XYZZ, else chunks a thread (batched affine)
  MulPipes mul_pipes = MulPipes::kInteger;  // as used
  size_t ones = 0;                          // scalars summed by the split
  size_t tail = 0;                          // scalars >= 2 (the tail MSM)
  // Streamed calls: the stage times above and the counts are sums over the
  // slices; staging_wait_ms is the host time converting bases into pinned
  // staging that the sums did not hide (the waits for the next slice; the
  // first two slices' conversions, never hidden, are not counted).
  size_t slices = 0;
  float staging_wait_ms = 0;
  // Upload batches (MsmGpuOptions::upload_batches) as run. With more than
  // one, upload_ms is the first batch's copy (the one nothing hides),
  // digits_ms and sort_ms are 0, and accumulate_ms runs from the first
  // batch's copy to the last batch's buckets added in: every batch's digits,
  // sort and sums, the later copies under them.
  uint32_t upload_batches = 1;
};

// A density bitmap resident on the device with its words' ranks (set bits
// before each word), for RunDensity calls that reuse it: a Groth16 key's A
// and B densities, made once per key. Without it each RunDensity ranks the
// words on the host and copies them from pageable memory (15 MB a call at
// 32 GiB, synchronous with the host).
class DeviceDensity {
 public:
  explicit DeviceDensity(const msm::DensityBitmap& density);
  size_t size() const { return size_; }    // scalars (bits)
  size_t count() const { return count_; }  // set bits: the bases a call needs
  size_t bytes() const { return words_.bytes() + ranks_.bytes(); }
  const uint64_t* words() const { return words_.data(); }
  const uint32_t* ranks() const { return ranks_.data(); }

 private:
  size_t size_ = 0, count_ = 0;
  DeviceBuffer<uint64_t> words_;
  DeviceBuffer<uint32_t> ranks_;
};

template <class Curve>
class Msm {
 public:
  using Field = typename Curve::Field;
  using Result = ec::JacobianPoint<typename Curve::HostCurve>;
  Msm() = default;

  // sum_{i < n} scalars[i] * bases[i]; bases.size() >= n.
  Result Run(const DeviceBases<Curve>& bases, const ff::Fr* scalars, size_t n, const MsmGpuOptions& options = {},
             MsmGpuTimings* timings = nullptr);
  // The same sum over the bases the table was made from, n <= bases.size(),
  // every window into one set of buckets (a table of k < W copies: window w
  // into set w / k of ceil(W / k)); options.window_bits: 0 or the table's;
  // window_major does not apply.
  Result Run(const ShiftedBases<Curve>& bases, const ff::Fr* scalars, size_t n, const MsmGpuOptions& options = {},
             MsmGpuTimings* timings = nullptr);
  // sum over set bits i of density: scalars[i] * bases[rank(i)]; scalars has
  // density.size() entries, bases.size() >= density.Count().
  Result RunDensity(const DeviceBases<Curve>& bases, const ff::Fr* scalars, const msm::DensityBitmap& density,
                    const MsmGpuOptions& options = {}, MsmGpuTimings* timings = nullptr);
  // The same with the bitmap already on the device (nothing copied).
  Result RunDensity(const DeviceBases<Curve>& bases, const ff::Fr* scalars, const DeviceDensity& density,
                    const MsmGpuOptions& options = {}, MsmGpuTimings* timings = nullptr);

  // The same sums with the bases left in host memory (the engine's points),
  // for keys that do not fit in device memory: each call converts the bases
  // slice by slice into page-locked staging, copies each slice to the device
  // and sums it there. Double-buffered: the conversion of slice k + 2 (host
  // threads) and the copy of slice k + 1 run while the GPU sums slice k. Costs
  // every base crossing the bus on every call (~55 GB/s at best; the host
  // conversion may be slower) and one window reduction per slice.
  using HostPoint = ec::AffinePoint<typename Curve::HostCurve>;
  Result RunStreamed(std::span<const HostPoint> bases, const ff::Fr* scalars, size_t n,
                     const MsmGpuOptions& options = {}, MsmGpuTimings* timings = nullptr);
  Result RunDensityStreamed(std::span<const HostPoint> bases, const ff::Fr* scalars, const msm::DensityBitmap& density,
                            const MsmGpuOptions& options = {}, MsmGpuTimings* timings = nullptr);

 private:
  using Point = AffinePoint<Field>;
  // Shifted bases as RunImpl sees them: `copies` copies of `stride` points, width c.
  struct Shift {
    size_t stride = 0;
    uint32_t window_bits = 0;
    uint32_t copies = 0;
  };
  // A density bitmap's words and per-word ranks into words_ / ranks_.
  void UploadBitmap(const std::vector<uint64_t>& words, const std::vector<uint32_t>& ranks);
  // shift != nullptr: `bases` is a shifted table (its first stride points are the bases).
  Result RunImpl(const Point* bases, const ff::Fr* scalars, size_t n, const uint64_t* words, const uint32_t* ranks,
                 const MsmGpuOptions& options, MsmGpuTimings* timings, const Shift* shift = nullptr);
  // RunImpl's body. RunImpl waits for both streams when it throws, so the
  // next call never rewrites inputs that queued kernels still read.
  Result RunQueued(const Point* bases, const ff::Fr* scalars, size_t n, const uint64_t* words, const uint32_t* ranks,
                   const MsmGpuOptions& options, MsmGpuTimings* timings, const Shift* shift);
  // The split's sum of the bases of 1-scalars (flags in ones_flags_), on
  // ones_stream_ so that it runs beside the tail MSM; left in ones_sum_
  // (pinned) once events_[7] completes. False if there are none.
  bool SumOnes(const Point* bases, size_t n, const uint64_t* words, const uint32_t* ranks);
  // A streamed call's piece: scalars [scalar_begin, + scalar_count) against
  // bases [base_begin, + base_count); with a density bitmap, words
  // [word_begin, + word_count) (slices start at word boundaries).
  struct Slice {
    size_t scalar_begin = 0, scalar_count = 0, base_begin = 0, base_count = 0, word_begin = 0;
  };
  Result RunSlices(std::span<const HostPoint> bases, const ff::Fr* scalars, const std::vector<Slice>& slices,
                   const uint64_t* words, const uint32_t* slice_ranks, const MsmGpuOptions& options,
                   MsmGpuTimings* timings);
  // How steps 1c-6 run, as RunQueued chose from the options and the scalars.
  struct TailPlan {
    uint32_t window_bits = 0;  // c (pippenger::MakeLayout)
    size_t m = 0;              // digit entries (> 0)
    size_t chunk = 0;          // entries per accumulation chunk
    uint32_t batch = 0;
    MulPipes mul_pipes = MulPipes::kInteger;
    bool window_major = false;
    uint32_t segment_len = 0;
    size_t shift_stride = 0;    // > 0: shifted bases of that many points a copy
    uint32_t shift_copies = 0;  // their copies (ShiftedBases::copies)
    // The digits' windows, and the buckets' (shifted: a set for `copies`
    // windows; a full table, one set for all). Defined in msm_impl.hpp.
    pippenger::Layout Digits() const;
    pippenger::Layout Buckets() const;
  };
  // Steps 1c-6; the window sums land in window_sums_.
  void RunTail(const Point* bases, size_t n, const TailPlan& plan, const uint64_t* words, const uint32_t* ranks);
  // Steps 1c-4b for the n canonical scalars at `canon` into `buckets`
  // (zeroed first; sized for the plan's bucket sets); events_[2..4] after
  // the digits, the sort and the sums.
  void AccumulateInto(const Point* bases, size_t n, const TailPlan& plan, const uint64_t* words, const uint32_t* ranks,
                      const Fr* canon, XyzzPoint<Field>* buckets);
  // Steps 5-6 over buckets_; the window sums land in window_sums_.
  void ReduceBuckets(const TailPlan& plan);
  // The running-sum levels ReduceBuckets fills (so a caller can grow them
  // before queuing work a cudaFree would wait for).
  void ReserveReduction(const TailPlan& plan);
  // Host scalars over shifted bases in upload batches: copies,
  // classifies and accumulates each batch into buckets_ (steps 1a-4c), the
  // ones flagged for SumOnes (events_[6] on copy_stream_). The caller reduces.
  // fixed_chunk: MsmGpuOptions::chunk (0: each batch's default). Returns
  // the last batch's chunk length.
  size_t AccumulateUploadBatches(const Point* bases, const ff::Fr* scalars,
                                 const std::vector<pippenger::ScalarRange>& batches, const TailPlan& plan,
                                 size_t fixed_chunk, bool split_ones);

  Stream stream_;
  Event events_[8];
  // Scratch, grown on demand and kept (cudaMalloc of gigabytes costs ms).
  DeviceBuffer<Fr> scalars_, canon_;
  DeviceBuffer<uint32_t> counts_, offsets_;
  DeviceBuffer<uint8_t> scan_temp_;
  DeviceBuffer<uint64_t> words_;
  DeviceBuffer<uint32_t> ranks_;
  DeviceBuffer<uint32_t> keys_[2], vals_[2];
  DeviceBuffer<uint8_t> sort_temp_;
  DeviceBuffer<XyzzPoint<Field>> buckets_, partials_, level_[2];
  DeviceBuffer<uint32_t> partial_keys_;
  DeviceBuffer<uint32_t> ones_flags_, ones_offsets_, ones_indices_;
  DeviceBuffer<uint8_t> ones_scan_temp_;
  DeviceBuffer<XyzzPoint<Field>> ones_level_[2];
  Stream ones_stream_;
  PinnedBuffer<XyzzPoint<Field>> window_sums_, ones_sum_;
  // Streamed calls: staging on both sides and the copy stream.
  PinnedBuffer<Point> host_slices_[2];
  DeviceBuffer<Point> device_slices_[2];
  Stream copy_stream_;
  Event copied_[2];
  // Upload batches: a later batch's buckets, and each batch's scalars
  // copied and classified (on copy_stream_).
  DeviceBuffer<XyzzPoint<Field>> more_buckets_;
  std::vector<Event> classified_;
  size_t last_ones_ = 0;
};

// Instantiated in g1_msm.cpp and g2_msm.cpp.
extern template class DeviceBases<G1Gpu>;
extern template class DeviceBases<G2Gpu>;
extern template class Msm<G1Gpu>;
extern template class Msm<G2Gpu>;

using G1DeviceBases = DeviceBases<G1Gpu>;
using G2DeviceBases = DeviceBases<G2Gpu>;
using G1Msm = Msm<G1Gpu>;
using G2Msm = Msm<G2Gpu>;

}  // namespace cuzk::cuda
