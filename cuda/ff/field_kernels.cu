#include "cuda/ff/field_kernels.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "cuda/ff/fp.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/ff/inverse_by.hpp"
#include "cuda/ff/mul_dfma.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"

namespace cuzk::cuda {
namespace {

template <class F>
__global__ void ElementwiseKernel(FieldOp op, const F* a, const F* b, F* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const F x = a[i], y = b[i];
    F r;
    switch (op) {
      case FieldOp::kMul: r = x * y; break;
      case FieldOp::kAdd: r = x + y; break;
      case FieldOp::kSub: r = x - y; break;
      case FieldOp::kNeg: r = -x; break;
      case FieldOp::kMulSeparateChains: r = F::MulSeparateChains(x, y); break;
      case FieldOp::kInverse: r = x.Inverse(); break;
      case FieldOp::kInverseVar: r = InverseVar(x); break;
      case FieldOp::kMulDfma: r = MulDfma(x, y); break;
      case FieldOp::kMulSub: r = F::MulSub(x, y, x + y, y); break;
      default: r = x.Square(); break;
    }
    out[i] = r;
  }
}

// 4 independent chains per thread give the scheduler independent work
// between the dependent carry chains of one multiplication.
template <class F, MulKind kKind>
CUZK_HD F MulAs(const F& a, const F& b) {
  if constexpr (kKind == MulKind::kSeparateChains) return F::MulSeparateChains(a, b);
  if constexpr (kKind == MulKind::kDfma) return MulDfma(a, b);
  if constexpr (kKind == MulKind::kSquare) return a.Square();
  if constexpr (kKind == MulKind::kMulSub) return F::MulSub(a, b, b, b);
  return a * b;
}

template <class F, MulKind kKind>
__global__ void MulChainKernel(const F* seeds, F* out, uint32_t rounds) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  F x0 = seeds[(4 * i) % 1024], x1 = seeds[(4 * i + 1) % 1024], x2 = seeds[(4 * i + 2) % 1024],
    x3 = seeds[(4 * i + 3) % 1024];
  const F y = seeds[i % 1024];
  for (uint32_t r = 0; r < rounds; ++r) {
    x0 = MulAs<F, kKind>(x0, y);
    x1 = MulAs<F, kKind>(x1, y);
    x2 = MulAs<F, kKind>(x2, y);
    x3 = MulAs<F, kKind>(x3, y);
  }
  out[i] = x0 + x1 + x2 + x3;
}

// 8 independent DFMA chains a thread (x <- x * y + z, values that stay finite).
__global__ void DfmaChainKernel(const double* seeds, double* out, uint32_t rounds) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  double x[8];
  CUZK_UNROLL
  for (int k = 0; k < 8; ++k) x[k] = seeds[(8 * i + k) % 1024];
  const double y = 0.999999, z = seeds[i % 1024];
  for (uint32_t r = 0; r < rounds; ++r) {
    CUZK_UNROLL
    for (int k = 0; k < 8; ++k) x[k] = __fma_rn(x[k], y, z);
  }
  double s = 0;
  CUZK_UNROLL
  for (int k = 0; k < 8; ++k) s += x[k];
  out[i] = s;
}

template <class F>
__global__ void InverseChainKernel(const F* seeds, F* out, uint32_t rounds) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  F x = seeds[i % 1024];
  const F y = seeds[(i + 1) % 1024];
  for (uint32_t r = 0; r < rounds; ++r) x = InverseVar(x) + y;
  out[i] = x;
}

template <class F, class H>
void Elementwise(FieldOp op, std::span<const H> a, std::span<const H> b, std::span<H> out) {
  if (a.size() != out.size() || (b.size() != a.size())) {
    throw std::invalid_argument("ElementwiseOnDevice: spans must have the same length");
  }
  if (a.empty()) return;
  Stream stream;
  DeviceBuffer<H> da(a.size()), db(a.size()), dout(a.size());
  da.CopyFromHost(a, stream);
  db.CopyFromHost(b, stream);
  const unsigned blocks = unsigned(std::min<size_t>((a.size() + 255) / 256, 4096));
  ElementwiseKernel<F><<<blocks, 256, 0, stream>>>(op, reinterpret_cast<const F*>(da.data()),
                                                   reinterpret_cast<const F*>(db.data()),
                                                   reinterpret_cast<F*>(dout.data()), a.size());
  CUZK_CUDA_CHECK(cudaGetLastError());
  dout.CopyToHost(out, stream);
  stream.Synchronize();
}

// 1024 fixed squares: the chain kernels' starting values, indexed by thread (modulo 1024).
template <class H>
std::vector<H> FieldSeeds() {
  std::vector<H> seeds(1024);
  for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = H::FromUint64(0x9e3779b97f4a7c15ull * (i + 1)).Square();
  return seeds;
}

// The median time of `repeats` launches (after one warm-up) of a chain
// kernel (seeds, out, rounds) over blocks x threads, started from `seeds`
// (1024 of them; H is their host type, F the kernel's).
// `ops_per_round`: the operations one round of one thread counts as.
template <class F, class H>
MulThroughput MedianChainThroughput(void (*kernel)(const F*, F*, uint32_t), const std::vector<H>& seeds,
                                    uint32_t blocks, uint32_t threads, uint32_t rounds, int repeats,
                                    double ops_per_round) {
  static_assert(sizeof(F) == sizeof(H));
  Stream stream;
  DeviceBuffer<H> dseeds(seeds.size()), dout(size_t(blocks) * threads);
  dseeds.CopyFromHost(std::span<const H>(seeds), stream);
  Event start, stop;
  std::vector<float> times;
  for (int r = 0; r <= repeats; ++r) {
    start.Record(stream);
    kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<const F*>(dseeds.data()), reinterpret_cast<F*>(dout.data()),
                                           rounds);
    CUZK_CUDA_CHECK(cudaGetLastError());
    stop.Record(stream);
    stop.Synchronize();
    if (r > 0) times.push_back(stop.ElapsedMsSince(start));
  }
  std::sort(times.begin(), times.end());
  MulThroughput t;
  t.ms = times.empty() ? 0 : times[times.size() / 2];
  t.mults_per_second = ops_per_round * blocks * threads * double(rounds) / (t.ms * 1e-3);
  return t;
}

template <class F, class H>
MulThroughput MeasureMul(uint32_t blocks, uint32_t threads, uint32_t rounds, int repeats, MulKind kind) {
  // MulChainKernel runs four independent chains a thread; a MulSub round is two products.
  auto* kernel = kind == MulKind::kSeparateChains ? MulChainKernel<F, MulKind::kSeparateChains>
                 : kind == MulKind::kDfma         ? MulChainKernel<F, MulKind::kDfma>
                 : kind == MulKind::kSquare       ? MulChainKernel<F, MulKind::kSquare>
                 : kind == MulKind::kMulSub       ? MulChainKernel<F, MulKind::kMulSub>
                                                  : MulChainKernel<F, MulKind::kEvenOdd>;
  const double products = kind == MulKind::kMulSub ? 8.0 : 4.0;
  return MedianChainThroughput<F, H>(kernel, FieldSeeds<H>(), blocks, threads, rounds, repeats, products);
}

}  // namespace

MulThroughput MeasureDfmaThroughput(uint32_t blocks, uint32_t threads, uint32_t rounds, int repeats) {
  std::vector<double> seeds(1024);
  for (size_t i = 0; i < seeds.size(); ++i) seeds[i] = 1.0 + double(i) / 1024;
  // DfmaChainKernel runs eight independent chains a thread.
  return MedianChainThroughput<double, double>(DfmaChainKernel, seeds, blocks, threads, rounds, repeats, 8.0);
}

MulThroughput MeasureFpInverseThroughput(uint32_t blocks, uint32_t threads, uint32_t rounds, int repeats) {
  return MedianChainThroughput<Fp, ff::Fp>(InverseChainKernel<Fp>, FieldSeeds<ff::Fp>(), blocks, threads, rounds,
                                           repeats, 1.0);
}

void ElementwiseOnDevice(FieldOp op, std::span<const ff::Fr> a, std::span<const ff::Fr> b, std::span<ff::Fr> out) {
  Elementwise<Fr, ff::Fr>(op, a, b, out);
}
void ElementwiseOnDevice(FieldOp op, std::span<const ff::Fp> a, std::span<const ff::Fp> b, std::span<ff::Fp> out) {
  Elementwise<Fp, ff::Fp>(op, a, b, out);
}

MulThroughput MeasureFrMulThroughput(uint32_t blocks, uint32_t threads, uint32_t rounds, int repeats, MulKind kind) {
  return MeasureMul<Fr, ff::Fr>(blocks, threads, rounds, repeats, kind);
}
MulThroughput MeasureFpMulThroughput(uint32_t blocks, uint32_t threads, uint32_t rounds, int repeats, MulKind kind) {
  return MeasureMul<Fp, ff::Fp>(blocks, threads, rounds, repeats, kind);
}

}  // namespace cuzk::cuda
