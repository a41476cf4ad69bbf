// NTT kernels and NttEngine. The per-thread work is in ntt_phases.hpp (shared
// with the host emulation test); this file adds only the launches, barriers
// and the device-side tables.
#include "cuda/ntt/ntt.hpp"

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "cuda/ntt/ntt_phases.hpp"
#include "cuda/ntt/ntt_recipe.hpp"
#include "cuda/ntt/ntt_tables.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"

namespace cuzk::cuda {
namespace {

using namespace ntt_internal;

// 256 threads per DIF block (NttKernelConfig::Validate). Radix-8 rounds keep 8
// elements (64 registers) per thread: 2 blocks per SM caps registers at 128.
// Radix-4 rounds: 3 blocks per SM (80 registers), or 4 (64, kNarrow). kScaling: this pass
// multiplies by coset powers or output scales (PassScales). kDirection:
// forward or inverse compiled in, or read at run time (kDifRuntime: the
// reference variant, NttKernelConfig::specialize_direction = false).
// kNarrow: the latency-bound kernels gain from the extra warps more than they
// lose to spilling, for the forward direction (NttKernelConfig::narrow_forward).
template <int kRadixLog, bool kScaling, int kDirection, bool kNarrow = false>
__global__ void __launch_bounds__(256, kRadixLog == 3 ? 2
                                       : kNarrow      ? 4
                                                      : 3) DifPassKernel(DifPassParams p) {
  extern __shared__ Word4 smem[];
  const uint32_t elems = 1u << (p.stages + p.log_cols);
  const SharedPlanes sm{smem, smem + elems};
  DifLoad<kScaling>(p, blockIdx.x, threadIdx.x, blockDim.x, sm);
  __syncthreads();
  for (uint32_t top = p.stages; top > 0;) {
    const uint32_t r = top < uint32_t(kRadixLog) ? top : uint32_t(kRadixLog);
    if constexpr (kRadixLog >= 3) {
      if (r == 3) DifRound<3, kDirection>(p, blockIdx.x, threadIdx.x, blockDim.x, sm, top - r);
    }
    if (r == 2) DifRound<2, kDirection>(p, blockIdx.x, threadIdx.x, blockDim.x, sm, top - r);
    if (r == 1) DifRound<1, kDirection>(p, blockIdx.x, threadIdx.x, blockDim.x, sm, top - r);
    __syncthreads();
    top -= r;
  }
  DifStore<kScaling>(p, blockIdx.x, threadIdx.x, blockDim.x, sm);
}

using DifKernelFn = void (*)(DifPassParams);

template <int kRadixLog, bool kScaling, bool kNarrow = false>
DifKernelFn SelectDirection(int direction) {
  if constexpr (!kNarrow) {
    if (direction == kDifInverse) return DifPassKernel<kRadixLog, kScaling, kDifInverse>;
  }
  if (direction == kDifForward) return DifPassKernel<kRadixLog, kScaling, kDifForward, kNarrow>;
  return DifPassKernel<kRadixLog, kScaling, kDifRuntime, kNarrow>;
}

// direction: kDifForward, kDifInverse or kDifRuntime; narrow: radix 4, not
// the inverse direction (measured slower, never compiled).
DifKernelFn SelectDifKernel(unsigned radix_log, bool scaling, int direction, bool narrow) {
  if (radix_log == 3) return scaling ? SelectDirection<3, true>(direction) : SelectDirection<3, false>(direction);
  if (narrow && direction != kDifInverse) {
    return scaling ? SelectDirection<2, true, true>(direction) : SelectDirection<2, false, true>(direction);
  }
  return scaling ? SelectDirection<2, true>(direction) : SelectDirection<2, false>(direction);
}

__global__ void __launch_bounds__(512) BitReverseKernel(BitReverseParams p) {
  if (!BitReverseOwnsBlock(p, blockIdx.x)) return;  // uniform per block: the partner block does it
  extern __shared__ Word4 smem[];
  const BitReverseTiles tiles = MakeBitReverseTiles(smem, p.tile_bits);
  BitReverseLoad(p, blockIdx.x, threadIdx.x, blockDim.x, tiles);
  __syncthreads();
  BitReverseStore(p, blockIdx.x, threadIdx.x, blockDim.x, tiles);
}

__global__ void BuildTwiddlesKernel(Fr* out, const Fr* lo, const Fr* hi, uint32_t count) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    BuildTwiddle(out, lo, hi, i);
  }
}

// Upper bound of any DIF block's shared memory (2^11 elements) and the
// bit-reversal block's: set once per kernel so launches may exceed 48 KiB.
void RaiseSharedMemoryLimits() {
  const int dif_bytes = int(size_t(1) << 11) * 32;
  for (unsigned radix_log : {2u, 3u}) {
    for (bool scaling : {false, true}) {
      for (int direction : {kDifForward, kDifInverse, kDifRuntime}) {
        for (bool narrow : {false, true}) {
          CUZK_CUDA_CHECK(cudaFuncSetAttribute(SelectDifKernel(radix_log, scaling, direction, narrow),
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, dif_bytes));
        }
      }
    }
  }
  CUZK_CUDA_CHECK(cudaFuncSetAttribute(BitReverseKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(BitReverseSharedBytes(5))));
}

// Host tables -> one device buffer [lo | hi]; returns pointers into it.
DeviceBuffer<Fr> UploadSplitTables(const SplitPowerTables& t, cudaStream_t stream) {
  DeviceBuffer<Fr> buf(t.lo.size() + t.hi.size());
  CUZK_CUDA_CHECK(cudaMemcpyAsync(buf.data(), t.lo.data(), t.lo.size() * sizeof(Fr), cudaMemcpyHostToDevice, stream));
  CUZK_CUDA_CHECK(
      cudaMemcpyAsync(buf.data() + t.lo.size(), t.hi.data(), t.hi.size() * sizeof(Fr), cudaMemcpyHostToDevice, stream));
  return buf;
}

}  // namespace

struct NttEngine::Impl {
  struct CosetTables {
    DeviceBuffer<Fr> buf;  // [lo (lo_count) | hi]
    size_t lo_count = 0;
  };
  using CosetKey = std::tuple<unsigned, ff::Fr::LimbArray, bool, ff::Fr::LimbArray>;  // size, g, inverse, scale

  int device = 0;
  std::mutex mu;  // guards everything below; held while enqueuing work that reads the tables
  bool limits_raised = false;
  unsigned twiddle_log = 0;
  DeviceBuffer<Fr> twiddles;
  std::map<CosetKey, CosetTables> coset_tables;
  cudaMemPool_t pool = nullptr;  // scratch for RunHost, kept mapped between calls

  // Caller holds mu and has made `device` current.
  void EnsureTwiddles(unsigned log_n) {
    if (!limits_raised) {
      RaiseSharedMemoryLimits();
      limits_raised = true;
    }
    if (twiddle_log >= log_n) return;
    // Growing replaces a table that enqueued work may still read.
    CUZK_CUDA_CHECK(cudaDeviceSynchronize());
    const unsigned new_log = std::max(log_n, 1u);
    const SplitPowerTables split = MakeTwiddleTables(new_log);
    Stream stream;
    DeviceBuffer<Fr> parts = UploadSplitTables(split, stream);
    DeviceBuffer<Fr> table(size_t(1) << (new_log - 1));
    const uint32_t count = uint32_t(table.size());
    BuildTwiddlesKernel<<<std::min<uint32_t>((count + 255) / 256, 65536), 256, 0, stream>>>(
        table.data(), parts.data(), parts.data() + split.lo.size(), count);
    CUZK_CUDA_CHECK(cudaGetLastError());
    stream.Synchronize();
    twiddles = std::move(table);
    twiddle_log = new_log;
  }

  const CosetTables& EnsureCoset(unsigned log_n, const ff::Fr& shift, bool inverse, const ff::Fr& scale,
                                 cudaStream_t stream) {
    CosetKey key{log_n, shift.Montgomery(), inverse, scale.Montgomery()};
    auto it = coset_tables.find(key);
    if (it != coset_tables.end()) return it->second;
    if (coset_tables.size() >= 32) {  // bounded: drop all (rare: many distinct shifts or sizes)
      CUZK_CUDA_CHECK(cudaDeviceSynchronize());
      coset_tables.clear();
    }
    const SplitPowerTables split = MakeCosetTables(log_n, shift, inverse, scale);
    CosetTables t;
    t.buf = UploadSplitTables(split, stream);
    t.lo_count = split.lo.size();
    // The host vectors die here: wait for the copies out of them.
    CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
    return coset_tables.emplace(key, std::move(t)).first->second;
  }
};

NttEngine::NttEngine(int device) : impl_(std::make_unique<Impl>()) {
  impl_->device = device;
  ScopedDevice scoped(device);
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  CUZK_CUDA_CHECK(cudaMemPoolCreate(&impl_->pool, &props));
  uint64_t keep_all = ~uint64_t(0);
  CUZK_CUDA_CHECK(cudaMemPoolSetAttribute(impl_->pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
}

NttEngine::~NttEngine() {
  if (impl_ && impl_->pool) internal::ReportReleaseError(cudaMemPoolDestroy(impl_->pool), "cudaMemPoolDestroy");
}

int NttEngine::device() const { return impl_->device; }

void NttEngine::Prepare(unsigned log_n) {
  if (log_n < 1 || log_n > kNttMaxLogN) throw std::invalid_argument("NttEngine::Prepare: size out of range");
  ScopedDevice scoped(impl_->device);
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->EnsureTwiddles(log_n);
}

void NttEngine::Run(NttKind kind, ff::Fr* device_data, size_t n, cudaStream_t stream, const NttOptions& options) {
  if (n < 2 || (n & (n - 1)) != 0 || n > (size_t(1) << kNttMaxLogN)) {
    throw std::invalid_argument("NttEngine::Run: size " + std::to_string(n) + " is not a power of two in 2..2^" +
                                std::to_string(kNttMaxLogN));
  }
  if (reinterpret_cast<uintptr_t>(device_data) % 16 != 0) {
    throw std::invalid_argument("NttEngine::Run: device data must be 16-byte aligned");
  }
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) ++log_n;
  const NttPlan plan = MakeNttPlan(log_n, options.kernel);

  ScopedDevice scoped(impl_->device);
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->EnsureTwiddles(log_n);
  const bool coset = kind == NttKind::kCosetForward || kind == NttKind::kCosetInverse;
  const Impl::CosetTables* coset_tables =
      coset ? &impl_->EnsureCoset(log_n, options.coset_shift, IsInverse(kind), options.scale, stream) : nullptr;

  Fr* data = reinterpret_cast<Fr*>(device_data);
  // Scratch for the out-of-place passes, stream-ordered from the engine's
  // pool (kept mapped between calls, so this is cheap after the first call).
  void* scratch = nullptr;
  if (NeedsScratch(plan, options.kernel)) {
    CUZK_CUDA_CHECK(cudaMallocFromPoolAsync(&scratch, n * sizeof(Fr), impl_->pool, stream));
  }
  NttTablePointers tables;
  tables.twiddles = impl_->twiddles.data();
  tables.twiddle_log = impl_->twiddle_log;
  if (coset_tables != nullptr) {
    tables.coset_lo = coset_tables->buf.data();
    tables.coset_hi = coset_tables->buf.data() + coset_tables->lo_count;
  }
  const std::optional<ff::Fr> scalar = ScalarOutputScale(kind, log_n, options.scale);
  const Fr device_scalar = Fr::FromHost(scalar.value_or(ff::Fr::One()));
  const NttRecipe recipe = MakeNttRecipe(plan, options.kernel, kind, data, static_cast<Fr*>(scratch), tables,
                                         scalar ? &device_scalar : nullptr);
  try {
    for (unsigned i = 0; i < recipe.num_passes; ++i) {
      const NttPassPlan& pass = plan.passes[i];
      const int direction =
          options.kernel.specialize_direction ? (IsInverse(kind) ? kDifInverse : kDifForward) : kDifRuntime;
      const DifKernelFn kernel = SelectDifKernel(options.kernel.radix_log, PassScales(recipe.passes[i]), direction,
                                                 options.kernel.narrow_forward && !IsInverse(kind));
      kernel<<<pass.blocks, pass.threads, pass.shared_bytes, stream>>>(recipe.passes[i]);
      CUZK_CUDA_CHECK(cudaGetLastError());
    }
    if (recipe.separate_bit_reverse) {
      const BitReversePlan& b = plan.bit_reverse;
      BitReverseKernel<<<b.blocks, b.threads, b.shared_bytes, stream>>>(recipe.bit_reverse);
      CUZK_CUDA_CHECK(cudaGetLastError());
    }
  } catch (...) {
    if (scratch) internal::ReportReleaseError(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
    throw;
  }
  if (scratch) CUZK_CUDA_CHECK(cudaFreeAsync(scratch, stream));
}

void NttEngine::RunHost(NttKind kind, std::span<ff::Fr> host_data, cudaStream_t stream, const NttOptions& options) {
  ScopedDevice scoped(impl_->device);
  const size_t bytes = host_data.size_bytes();
  void* scratch = nullptr;
  CUZK_CUDA_CHECK(cudaMallocFromPoolAsync(&scratch, bytes, impl_->pool, stream));
  try {
    CUZK_CUDA_CHECK(cudaMemcpyAsync(scratch, host_data.data(), bytes, cudaMemcpyHostToDevice, stream));
    Run(kind, static_cast<ff::Fr*>(scratch), host_data.size(), stream, options);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(host_data.data(), scratch, bytes, cudaMemcpyDeviceToHost, stream));
  } catch (...) {
    internal::ReportReleaseError(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
    throw;
  }
  CUZK_CUDA_CHECK(cudaFreeAsync(scratch, stream));
  CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace cuzk::cuda
