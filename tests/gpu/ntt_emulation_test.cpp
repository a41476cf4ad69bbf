// The GPU NTT's phases (cuda/ntt/ntt_phases.hpp) replayed on the host exactly
// as the kernels launch them (same plan, same per-thread work, barriers
// between phases), against the CPU reference. Checks the pass decomposition,
// index maps, twiddle and coset tables and the bit reversal on machines
// without a GPU; the small kernel configs force 3-4 passes on small sizes.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "cuda/groth16/h_kernels.hpp"
#include "cuda/ntt/ntt_phases.hpp"
#include "cuda/ntt/ntt_recipe.hpp"
#include "cuda/ntt/ntt_tables.hpp"
#include "cuda/testing/reference_ntt.hpp"
#include "engine/groth16/h_polynomial.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

using namespace ntt_internal;

std::vector<Fr> ToDevice(const std::vector<ff::Fr>& v) {
  std::vector<Fr> out;
  for (const auto& x : v) out.push_back(Fr::FromHost(x));
  return out;
}

// As NttEngine::Run with NttOptions{coset_shift = shift, scale, kernel = config}.
std::vector<ff::Fr> EmulateNtt(NttKind kind, const std::vector<ff::Fr>& input, unsigned twiddle_log,
                               const NttKernelConfig& config, ff::Fr shift, ff::Fr scale = ff::Fr::One()) {
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < input.size()) ++log_n;
  const NttPlan plan = MakeNttPlan(log_n, config);
  std::vector<Fr> data = ToDevice(input);

  const SplitPowerTables tw_split = MakeTwiddleTables(twiddle_log);
  const std::vector<Fr> tw_lo = ToDevice(tw_split.lo), tw_hi = ToDevice(tw_split.hi);
  std::vector<Fr> twiddles(size_t(1) << (twiddle_log - 1));
  for (uint32_t i = 0; i < twiddles.size(); ++i) BuildTwiddle(twiddles.data(), tw_lo.data(), tw_hi.data(), i);

  const bool coset = kind == NttKind::kCosetForward || kind == NttKind::kCosetInverse;
  std::vector<Fr> coset_lo, coset_hi;
  if (coset) {
    const SplitPowerTables c = MakeCosetTables(log_n, shift, IsInverse(kind), scale);
    coset_lo = ToDevice(c.lo);
    coset_hi = ToDevice(c.hi);
  }

  NttTablePointers tables;
  tables.twiddles = twiddles.data();
  tables.twiddle_log = twiddle_log;
  tables.coset_lo = coset ? coset_lo.data() : nullptr;
  tables.coset_hi = coset ? coset_hi.data() : nullptr;
  std::vector<Fr> scratch(NeedsScratch(plan, config) ? data.size() : 0, Fr::FromHost(ff::Fr::FromUint64(99)));
  const std::optional<ff::Fr> scalar = ScalarOutputScale(kind, log_n, scale);
  const Fr device_scalar = Fr::FromHost(scalar.value_or(ff::Fr::One()));
  const NttRecipe recipe =
      MakeNttRecipe(plan, config, kind, data.data(), scratch.data(), tables, scalar ? &device_scalar : nullptr);
  for (unsigned pi = 0; pi < recipe.num_passes; ++pi) {
    const NttPassPlan& pass = plan.passes[pi];
    const DifPassParams& p = recipe.passes[pi];
    const uint32_t elems = 1u << (pass.stages + pass.log_cols);
    EXPECT_EQ(pass.shared_bytes, size_t(elems) * 32);
    // Out-of-place passes: poison the destination so unwritten elements show.
    if (p.dst != p.src) {
      for (size_t i = 0; i < data.size(); ++i) p.dst[i] = Fr::FromHost(ff::Fr::FromUint64(1000 + i));
    }
    for (uint32_t block = 0; block < pass.blocks; ++block) {
      std::vector<Word4> smem(2 * elems);
      SharedPlanes sm{smem.data(), smem.data() + elems};
      for (uint32_t tid = 0; tid < pass.threads; ++tid) DifLoad(p, block, tid, pass.threads, sm);
      ForEachRound(pass.stages, config.radix_log, [&](unsigned r, unsigned b) {
        for (uint32_t tid = 0; tid < pass.threads; ++tid) {
          if (r == 3) DifRound<3>(p, block, tid, pass.threads, sm, b);
          if (r == 2) DifRound<2>(p, block, tid, pass.threads, sm, b);
          if (r == 1) DifRound<1>(p, block, tid, pass.threads, sm, b);
        }
      });
      for (uint32_t tid = 0; tid < pass.threads; ++tid) DifStore(p, block, tid, pass.threads, sm);
    }
  }

  if (recipe.separate_bit_reverse) {
    const BitReverseParams& br = recipe.bit_reverse;
    for (uint32_t block = 0; block < plan.bit_reverse.blocks; ++block) {
      if (!BitReverseOwnsBlock(br, block)) continue;
      std::vector<Word4> smem(plan.bit_reverse.shared_bytes / sizeof(Word4));
      const BitReverseTiles tiles = MakeBitReverseTiles(smem.data(), br.tile_bits);
      for (uint32_t tid = 0; tid < plan.bit_reverse.threads; ++tid) {
        BitReverseLoad(br, block, tid, plan.bit_reverse.threads, tiles);
      }
      for (uint32_t tid = 0; tid < plan.bit_reverse.threads; ++tid) {
        BitReverseStore(br, block, tid, plan.bit_reverse.threads, tiles);
      }
    }
  }

  std::vector<ff::Fr> out;
  for (const auto& x : data) out.push_back(x.ToHost());
  return out;
}

testing::ReferenceNttKind ReferenceKind(NttKind k) {
  switch (k) {
    case NttKind::kForward: return testing::ReferenceNttKind::kForward;
    case NttKind::kInverse: return testing::ReferenceNttKind::kInverse;
    case NttKind::kCosetForward: return testing::ReferenceNttKind::kCosetForward;
    default: return testing::ReferenceNttKind::kCosetInverse;
  }
}

const char* KindName(NttKind k) {
  switch (k) {
    case NttKind::kForward: return "forward";
    case NttKind::kInverse: return "inverse";
    case NttKind::kCosetForward: return "coset-forward";
    default: return "coset-inverse";
  }
}

std::vector<ff::Fr> RandomVector(std::mt19937_64& rng, size_t n) {
  std::vector<ff::Fr> v(n);
  for (auto& x : v) x = ff::Fr::Random(rng);
  return v;
}

TEST(ReferenceNttTest, MatchesNaiveDftAndRoundTrips) {
  auto rng = test::SeededRng();
  for (unsigned log_n = 0; log_n <= 7; ++log_n) {
    auto a = RandomVector(rng, size_t(1) << log_n);
    auto fwd = a;
    testing::ReferenceNtt(fwd, testing::ReferenceNttKind::kForward, 2);
    EXPECT_EQ(fwd, testing::NaiveForwardDft(a)) << "log_n=" << log_n;
    auto back = fwd;
    testing::ReferenceNtt(back, testing::ReferenceNttKind::kInverse, 2);
    EXPECT_EQ(back, a) << "log_n=" << log_n;
    auto c = a;
    testing::ReferenceNtt(c, testing::ReferenceNttKind::kCosetForward, 2);
    // Coset NTT = DFT of a_j g^j.
    auto shifted = a;
    ff::Fr g = ff::Fr::One();
    for (auto& x : shifted) x *= g, g *= ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator);
    EXPECT_EQ(c, testing::NaiveForwardDft(shifted)) << "log_n=" << log_n;
    testing::ReferenceNtt(c, testing::ReferenceNttKind::kCosetInverse, 2);
    EXPECT_EQ(c, a) << "log_n=" << log_n;
  }
}

struct EmulationCase {
  NttKernelConfig config;
  unsigned extra_twiddle_bits;  // > 0: the cached twiddle table is for a larger size (strided use)
};

TEST(NttEmulationTest, AllKindsMatchReference) {
  auto rng = test::SeededRng();
  const EmulationCase cases[] = {
      {{3, 11, 10, true}, 0},                               // radix-8 rounds, fused bit reversal
      {{2, 10, 10, true}, 2},                               // radix-4 rounds, larger twiddle table
      {{2, 10, 10, false}, 0},                              // separate bit-reversal pass
      {{3, 5, 3, true}, 0},                                 // up to 4 passes, several groups per block
      {{3, 5, 3, false}, 1},         {{2, 4, 2, true}, 1},  // many passes of 1-2 stages
      {{2, 10, 10, true, false}, 0},                        // stage 0 multiplied by its unit twiddle
      {{3, 5, 3, false, false}, 1},
  };
  const ff::Fr shifts[] = {ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator), ff::Fr::FromUint64(5)};
  for (const auto& c : cases) {
    for (unsigned log_n = 1; log_n <= 12; ++log_n) {
      if ((log_n + c.config.max_pass_stages - 1) / c.config.max_pass_stages > 4) continue;
      const auto a = RandomVector(rng, size_t(1) << log_n);
      for (NttKind kind : {NttKind::kForward, NttKind::kInverse, NttKind::kCosetForward, NttKind::kCosetInverse}) {
        const ff::Fr shift = shifts[log_n % 2];
        auto expected = a;
        testing::ReferenceNtt(expected, ReferenceKind(kind), 2, shift);
        const auto got = EmulateNtt(kind, a, log_n + c.extra_twiddle_bits, c.config, shift);
        ASSERT_EQ(got, expected) << KindName(kind) << " log_n=" << log_n << " radix_log=" << c.config.radix_log
                                 << " log_block_elems=" << c.config.log_block_elems
                                 << " max_pass_stages=" << c.config.max_pass_stages
                                 << " fuse_bit_reverse=" << c.config.fuse_bit_reverse;
        // NttOptions::scale: a random one, and n (the inverse's raw sums:
        // no multiplication left) and n^-1.
        const ff::Fr n = ff::Fr::FromUint64(uint64_t(1) << log_n);
        for (const ff::Fr& scale : {ff::Fr::Random(rng), n, n.Inverse()}) {
          auto scaled = expected;
          for (auto& x : scaled) x *= scale;
          ASSERT_EQ(EmulateNtt(kind, a, log_n + c.extra_twiddle_bits, c.config, shift, scale), scaled)
              << KindName(kind) << " scaled, log_n=" << log_n << " radix_log=" << c.config.radix_log
              << " max_pass_stages=" << c.config.max_pass_stages << " fuse_bit_reverse=" << c.config.fuse_bit_reverse;
        }
      }
    }
  }
}

// Groth16's H in six NTTs with their constants folded into the transforms'
// own multiplications (cuda/groth16/h_kernels.hpp, HScales), replayed on the
// host: the transforms as the kernels run them, the product and difference
// as the H kernels compute them; against the CPU's bellperson H.
TEST(NttEmulationTest, SixNttHWithFoldedScalesMatchesCpu) {
  auto rng = test::SeededRng();
  const NttKernelConfig configs[] = {{}, {3, 5, 3, true}};
  for (const NttKernelConfig& config : configs) {
    for (unsigned log_m : {1u, 2u, 5u, 9u, 12u}) {
      const size_t m = size_t(1) << log_m;
      std::vector<ff::Fr> abc[3];
      for (auto& v : abc) v = RandomVector(rng, m);
      const ff::Fr g = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator);
      const HScales scales = MakeHScales(m);
      std::vector<ff::Fr> t[3];
      for (int k = 0; k < 3; ++k) {
        t[k] = EmulateNtt(NttKind::kInverse, abc[k], log_m, config, g, scales.inverse);
        if (k < 2) t[k] = EmulateNtt(NttKind::kCosetForward, t[k], log_m, config, g, scales.coset_forward);
      }
      for (size_t i = 0; i < m; ++i) t[0][i] *= t[1][i];
      t[0] = EmulateNtt(NttKind::kCosetInverse, t[0], log_m, config, g, scales.coset_inverse);
      for (size_t i = 0; i < m; ++i) t[0][i] = (t[0][i] - t[2][i]) * scales.difference;
      const std::vector<ff::Fr> want =
          groth16::ComputeHScalars(groth16::HQueryForm::kBellperson, abc[0], abc[1], abc[2]);
      ASSERT_EQ(want.size(), m - 1);
      for (size_t i = 0; i + 1 < m; ++i) ASSERT_EQ(t[0][i], want[i]) << "log_m=" << log_m << " i=" << i;
    }
  }
}

TEST(NttPlanTest, RejectsBadSizesAndConfigs) {
  EXPECT_THROW(MakeNttPlan(0, {}), std::invalid_argument);
  EXPECT_THROW(MakeNttPlan(kNttMaxLogN + 1, {}), std::invalid_argument);
  EXPECT_THROW(MakeNttPlan(10, NttKernelConfig{4, 11, 10}), std::invalid_argument);
  EXPECT_THROW(MakeNttPlan(10, NttKernelConfig{2, 11, 10}), std::invalid_argument);  // 512 threads
  const NttPlan p27 = MakeNttPlan(27, {});
  ASSERT_EQ(p27.num_passes, 3u);
  for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(p27.passes[i].stages, 9u);
  EXPECT_EQ(p27.passes[0].threads, 256u);
}

}  // namespace
}  // namespace cuzk::cuda
