// `cuzk-gpu-bench field`: device Fr/Fp operations against the host fields on
// random inputs, then multiplication throughput against the IMAD ceiling.
#include <cstdio>
#include <random>
#include <vector>

#include "cuda/ff/field_kernels.hpp"
#include "cuda/runtime/device_info.hpp"
#include "tools/cuzk-gpu-bench/bench_util.hpp"

namespace cuzk::gpubench {
namespace {

template <class H>
bool CheckField(const char* name, size_t n, uint64_t seed) {
  std::vector<H> a(n), b(n), got(n);
  FillRandom<H>(a, seed);
  FillRandom<H>(b, seed + 1);
  a[0] = H::Zero(), b[0] = -H::One(), a[1] = -H::One(), b[1] = -H::One();
  bool ok = true;
  const struct {
    cuda::FieldOp op;
    const char* name;
  } ops[] = {{cuda::FieldOp::kMul, "mul"},          {cuda::FieldOp::kAdd, "add"},
             {cuda::FieldOp::kSub, "sub"},          {cuda::FieldOp::kNeg, "neg"},
             {cuda::FieldOp::kSquare, "square"},    {cuda::FieldOp::kMulSeparateChains, "mul-sc"},
             {cuda::FieldOp::kInverse, "inv"},      {cuda::FieldOp::kInverseVar, "inv-by"},
             {cuda::FieldOp::kMulDfma, "mul-dfma"}, {cuda::FieldOp::kMulSub, "mul-sub"}};
  for (const auto& o : ops) {
    cuda::ElementwiseOnDevice(o.op, a, b, got);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      if (o.op == cuda::FieldOp::kInverse || o.op == cuda::FieldOp::kInverseVar) {
        // The host inverts slowly: the first 2^14 elements, and every one against the product.
        if (i < (size_t(1) << 14))
          bad += got[i] != (a[i].IsZero() ? H::Zero() : a[i].Inverse());
        else
          bad += got[i] * a[i] != H::One();
        continue;
      }
      const bool mul =
          o.op == cuda::FieldOp::kMul || o.op == cuda::FieldOp::kMulSeparateChains || o.op == cuda::FieldOp::kMulDfma;
      H want = mul                              ? a[i] * b[i]
               : o.op == cuda::FieldOp::kMulSub ? a[i] * b[i] - (a[i] + b[i]) * b[i]
               : o.op == cuda::FieldOp::kAdd    ? a[i] + b[i]
               : o.op == cuda::FieldOp::kSub    ? a[i] - b[i]
               : o.op == cuda::FieldOp::kNeg    ? -a[i]
                                                : a[i].Square();
      bad += got[i] != want;
    }
    std::printf("field check %s %-6s n=%zu: %s (%zu mismatches)\n", name, o.name, n, bad ? "FAIL" : "PASS", bad);
    ok &= bad == 0;
  }
  return ok;
}

}  // namespace

int RunField(const Args& args) {
  const size_t n = size_t(args.GetInt("n", 1 << 20));
  const uint64_t seed = uint64_t(args.GetInt("seed", long(std::random_device{}() & 0x7fffffff)));
  std::printf("seed=%llu\n", (unsigned long long)seed);
  bool ok = CheckField<ff::Fr>("Fr", n, seed);
  ok &= CheckField<ff::Fp>("Fp", n, seed + 7);
  auto devices = cuda::ListDevices();
  const uint32_t sms = devices.empty() ? 132 : uint32_t(devices[0].multiprocessors);
  // IMAD ceiling: 64 per SM per clock; clock from the anchors (1.98 GHz) as we
  // cannot read the running clock portably.
  const double imad_per_s = sms * 64.0 * 1.98e9;
  // The percentages are of what the integer pipe alone allows at Mul's
  // multiply-add count; the dfma row can pass 100% (its products are FP64),
  // and so can square and mul-sub (fewer multiply-adds a product: 456, 438).
  const struct {
    cuda::MulKind kind;
    const char* name;
  } kinds[] = {{cuda::MulKind::kEvenOdd, "even-odd"},
               {cuda::MulKind::kSeparateChains, "separate-chains"},
               {cuda::MulKind::kDfma, "dfma"},
               {cuda::MulKind::kSquare, "square"},
               {cuda::MulKind::kMulSub, "mul-sub"}};
  for (const auto& k : kinds) {
    for (uint32_t threads : {128u, 256u}) {
      auto fr = cuda::MeasureFrMulThroughput(sms * 8, threads, 2048, 5, k.kind);
      auto fp = cuda::MeasureFpMulThroughput(sms * 8, threads, 512, 5, k.kind);
      std::printf(
          "mul throughput %-15s (%u SMs x 8 blocks x %u threads, 4 chains): Fr %.2f G/s (%.0f%% of %.1f T "
          "IMAD/s at 264/mul), Fp %.2f G/s (%.0f%% at 588/mul)\n",
          k.name, sms, threads, fr.mults_per_second / 1e9, 100 * fr.mults_per_second * 264 / imad_per_s,
          imad_per_s / 1e12, fp.mults_per_second / 1e9, 100 * fp.mults_per_second * 588 / imad_per_s);
    }
  }
  for (uint32_t threads : {128u, 256u}) {
    const auto d = cuda::MeasureDfmaThroughput(sms * 8, threads, 4096, 5);
    std::printf(
        "dfma throughput (%u SMs x 8 blocks x %u threads, 8 chains): %.2f T DFMA/s = %.1f a clock an SM at "
        "1.98 GHz\n",
        sms, threads, d.mults_per_second / 1e12, d.mults_per_second / (sms * 1.98e9));
  }
  // One safegcd inversion in Fp multiplications (the batched affine MSM
  // pays one per step of a thread's batch).
  const auto fp_mul = cuda::MeasureFpMulThroughput(sms * 8, 128, 512, 5);
  for (uint32_t threads : {64u, 128u}) {
    const auto inv = cuda::MeasureFpInverseThroughput(sms * 8, threads, 64, 5);
    std::printf("Fp safegcd inversion throughput (%u SMs x 8 blocks x %u threads): %.3f G/s = %.1f Fp mults each\n",
                sms, threads, inv.mults_per_second / 1e9, fp_mul.mults_per_second / inv.mults_per_second);
  }
  return ok ? 0 : 1;
}

}  // namespace cuzk::gpubench
