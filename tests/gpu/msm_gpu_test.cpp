// GPU G1 MSM (cuda/msm/msm.hpp) against the CPU Pippenger msm::MsmG1:
// equal as group elements (compared in affine form) on random inputs of
// sizes 1..2^16, every window width, tiny and large chunks (buckets split
// over many accumulation threads), edge scalars (0, 1, r - 1, ...), repeated
// and opposite bases, the point at infinity as a base, device-resident and
// pinned scalars, and the density-masked variant; the same for G2 (G2Msm vs
// msm::MsmG2) at sizes up to 2^14. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda/msm/msm.hpp"
#include "cuda/msm/shifted_bases.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "engine/groth16/fixed_base.hpp"
#include "engine/msm/msm.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

constexpr size_t kMaxN = size_t(1) << 16;

class MsmGpuTest : public ::testing::Test {
 protected:
  // 2^16 random distinct bases, built and uploaded once for the suite.
  static void SetUpTestSuite() {
    std::string why;
    if (ListDevices(&why).empty()) return;
    auto rng = test::SeededRng();
    std::vector<ff::Fr> k(kMaxN);
    for (auto& s : k) s = ff::Fr::Random(rng);
    bases_ = new std::vector<ec::G1Affine>(kMaxN);
    groth16::FixedBaseTable<ec::G1Curve>(ec::G1Affine::Generator(), 8).MulBatch(k, *bases_);
    device_bases_ = new G1DeviceBases(*bases_);
  }
  static void TearDownTestSuite() {
    delete device_bases_;
    delete bases_;
    device_bases_ = nullptr;
    bases_ = nullptr;
  }

  static std::vector<ff::Fr> RandomScalars(std::mt19937_64& rng, size_t n) {
    std::vector<ff::Fr> s(n);
    for (auto& x : s) x = ff::Fr::Random(rng);
    return s;
  }
  // Small scalars (zero digits in most windows), one in 8 random.
  static std::vector<ff::Fr> SkewedScalars(std::mt19937_64& rng, size_t n) {
    std::vector<ff::Fr> s(n);
    for (auto& x : s) x = rng() % 8 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(rng() % 5000);
    return s;
  }
  // Witness-like: half ones, most of the rest zeros, 1 in 40 random.
  static std::vector<ff::Fr> WitnessScalars(std::mt19937_64& rng, size_t n) {
    std::vector<ff::Fr> s(n);
    for (auto& x : s) x = rng() % 2 ? ff::Fr::One() : rng() % 20 ? ff::Fr::Zero() : ff::Fr::Random(rng);
    return s;
  }

  static void ExpectMatchesCpu(const G1DeviceBases& dev, std::span<const ec::G1Affine> host_bases,
                               std::span<const ff::Fr> scalars, const MsmGpuOptions& options, const std::string& what) {
    G1Msm msm;
    const ec::G1Affine got = msm.Run(dev, scalars.data(), scalars.size(), options).ToAffine();
    const ec::G1Affine want = msm::MsmG1(host_bases.first(scalars.size()), scalars).ToAffine();
    EXPECT_EQ(got, want) << what << " n=" << scalars.size() << " window=" << options.window_bits
                         << " chunk=" << options.chunk;
  }

  // Repeated, opposite and infinite bases with small scalars, so that buckets
  // see P + P and P + (-P) (the additions' equal-x branches).
  struct EdgeInputs {
    std::vector<ec::G1Affine> bases;
    std::vector<ff::Fr> scalars;
  };
  static EdgeInputs EdgeBuckets() {
    const ec::G1Affine p = (*bases_)[0], q = (*bases_)[1];
    EdgeInputs e;
    for (int rep = 0; rep < 200; ++rep) {
      for (const ec::G1Affine& b : {p, p, -p, q, ec::G1Affine::Infinity(), -q, q}) {
        e.bases.push_back(b), e.scalars.push_back(ff::Fr::FromUint64(3 + rep % 2));
      }
    }
    return e;
  }

  static std::vector<ec::G1Affine>* bases_;
  static G1DeviceBases* device_bases_;
};

std::vector<ec::G1Affine>* MsmGpuTest::bases_ = nullptr;
G1DeviceBases* MsmGpuTest::device_bases_ = nullptr;

TEST_F(MsmGpuTest, RandomInputsOfManySizesMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  G1Msm msm;  // one object across sizes: scratch grows and is reused
  for (size_t n :
       {size_t(1), size_t(2), size_t(3), size_t(31), size_t(100), size_t(1000), size_t(4097), size_t(16387), kMaxN}) {
    const std::vector<ff::Fr> scalars = RandomScalars(rng, n);
    MsmGpuTimings t;
    const ec::G1Affine got = msm.Run(*device_bases_, scalars.data(), n, {}, &t).ToAffine();
    const ec::G1Affine want = msm::MsmG1(std::span(*bases_).first(n), scalars).ToAffine();
    EXPECT_EQ(got, want) << "n=" << n << " window=" << t.window_bits << " chunk=" << t.chunk;
  }
}

TEST_F(MsmGpuTest, EveryWindowWidthAndChunkSize) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const std::vector<ff::Fr> scalars = RandomScalars(rng, 5000);
  for (uint32_t c = 4; c <= 22; c += 3) {
    ExpectMatchesCpu(*device_bases_, *bases_, scalars, {.window_bits = c}, "window sweep");
  }
  for (size_t chunk : {size_t(1), size_t(3), size_t(64), size_t(100000)}) {
    ExpectMatchesCpu(*device_bases_, *bases_, scalars, {.window_bits = 8, .chunk = chunk}, "chunk sweep");
  }
  // Running-sum segments from one bucket to the whole window (128 buckets at
  // c = 8; a longer one runs the whole window in one thread).
  for (uint32_t len : {1u, 2u, 16u, 128u, 1024u}) {
    ExpectMatchesCpu(*device_bases_, *bases_, scalars, {.window_bits = 8, .segment_len = len}, "segment sweep");
  }
  G1Msm msm;
  for (uint32_t bad : {3u, 96u}) {
    EXPECT_THROW(msm.Run(*device_bases_, scalars.data(), 100, {.window_bits = 8, .segment_len = bad}),
                 std::invalid_argument)
        << bad;
  }
}

// Groth16 witnesses are mostly small values: almost every entry of window 0
// lands in a handful of buckets, each split over thousands of chunks (the
// fixup's tree passes). Also the widths whose top window holds only the carry.
TEST_F(MsmGpuTest, SkewedScalarsFillFewBuckets) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  std::vector<ff::Fr> scalars(kMaxN);
  for (auto& x : scalars) x = rng() % 8 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(1 + rng() % 3);
  ExpectMatchesCpu(*device_bases_, *bases_, scalars, {}, "skewed, default");
  ExpectMatchesCpu(*device_bases_, *bases_, scalars, {.window_bits = 12, .chunk = 2}, "skewed, chunk 2");
  const std::vector<ff::Fr> ones(kMaxN, ff::Fr::One());
  ExpectMatchesCpu(*device_bases_, *bases_, ones, {.window_bits = 16, .chunk = 1}, "all ones, chunk 1");
  const std::vector<ff::Fr> uniform = RandomScalars(rng, kMaxN);
  for (uint32_t c : {14u, 15u, 17u, 18u}) {
    ExpectMatchesCpu(*device_bases_, *bases_, uniform, {.window_bits = c}, "carry-only top window");
  }
}

TEST_F(MsmGpuTest, EdgeScalarsRepeatedAndOppositeBases) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const ec::G1Affine p = (*bases_)[0], q = (*bases_)[1];
  // Bases repeat (P + P doubles inside a bucket), cancel (Q, -Q) and include infinity.
  std::vector<ec::G1Affine> edge_bases;
  std::vector<ff::Fr> scalars;
  const ff::Fr special[] = {ff::Fr::Zero(),        ff::Fr::One(),          -ff::Fr::One(),
                            ff::Fr::FromUint64(2), -ff::Fr::FromUint64(2), ff::Fr::FromUint64(uint64_t(1) << 63)};
  for (int rep = 0; rep < 50; ++rep) {
    for (const ff::Fr& s : special) {
      edge_bases.push_back(p), scalars.push_back(s);
      edge_bases.push_back(q), scalars.push_back(s);
      edge_bases.push_back(-q), scalars.push_back(ff::Fr::Random(rng));
    }
    edge_bases.push_back(ec::G1Affine::Infinity()), scalars.push_back(ff::Fr::Random(rng));
  }
  G1DeviceBases dev(edge_bases);
  for (uint32_t c : {5u, 13u, 16u}) {
    for (size_t chunk : {size_t(0), size_t(2)}) {
      ExpectMatchesCpu(dev, edge_bases, scalars, {.window_bits = c, .chunk = chunk}, "edge");
    }
  }
  // s P + (-s) P = infinity.
  const ff::Fr s = ff::Fr::Random(rng);
  std::vector<ec::G1Affine> pp = {p, p};
  std::vector<ff::Fr> cancel = {s, -s};
  G1DeviceBases dev_pp(pp);
  G1Msm msm;
  EXPECT_TRUE(msm.Run(dev_pp, cancel.data(), 2).IsInfinity());
  // All scalars equal (one bucket per window spans every chunk) and all zero.
  std::vector<ff::Fr> same(kMaxN, -ff::Fr::One()), ones(kMaxN, ff::Fr::One()), zeros(kMaxN, ff::Fr::Zero());
  ExpectMatchesCpu(*device_bases_, *bases_, same, {}, "all r-1");
  ExpectMatchesCpu(*device_bases_, *bases_, ones, {.chunk = 4}, "all ones");
  EXPECT_TRUE(msm.Run(*device_bases_, zeros.data(), kMaxN).IsInfinity());
  EXPECT_TRUE(msm.Run(*device_bases_, zeros.data(), 0).IsInfinity());
}

TEST_F(MsmGpuTest, PinnedAndDeviceScalars) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const size_t n = 20000;
  PinnedBuffer<ff::Fr> pinned(n);
  for (size_t i = 0; i < n; ++i) pinned[i] = ff::Fr::Random(rng);
  const ec::G1Affine want =
      msm::MsmG1(std::span(*bases_).first(n), std::span<const ff::Fr>(pinned.data(), n)).ToAffine();
  G1Msm msm;
  EXPECT_EQ(msm.Run(*device_bases_, pinned.data(), n).ToAffine(), want);
  DeviceBuffer<ff::Fr> on_device(n);
  on_device.CopyFromHost(std::span<const ff::Fr>(pinned.data(), n), nullptr);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(msm.Run(*device_bases_, on_device.data(), n, {.scalars_at = ScalarsAt::kDevice}).ToAffine(), want);
}

TEST_F(MsmGpuTest, DensityMaskedMatchesCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  for (size_t n : {size_t(1), size_t(63), size_t(10000)}) {
    msm::DensityBitmap density(n);
    for (size_t i = 0; i < n; ++i) density.Set(i, rng() % 3 != 0);
    const std::vector<ff::Fr> scalars = RandomScalars(rng, n);
    const std::span<const ec::G1Affine> used = std::span(*bases_).first(density.Count());
    const ec::G1Affine want = msm::MsmG1Density(used, scalars, density).ToAffine();
    G1Msm msm;
    EXPECT_EQ(msm.RunDensity(*device_bases_, scalars.data(), density).ToAffine(), want) << "n=" << n;
    EXPECT_EQ(msm.RunDensity(*device_bases_, scalars.data(), density, {.window_bits = 6, .chunk = 3}).ToAffine(), want)
        << "n=" << n;
    // The bitmap resident on the device (a key's, reused by every proof): the same sums, twice.
    const DeviceDensity resident(density);
    EXPECT_EQ(resident.size(), n);
    EXPECT_EQ(resident.count(), density.Count());
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(msm.RunDensity(*device_bases_, scalars.data(), resident).ToAffine(), want) << "resident, n=" << n;
    }
    EXPECT_EQ(msm.RunDensity(*device_bases_, scalars.data(), resident, {.window_bits = 6, .chunk = 3}).ToAffine(), want)
        << "resident, n=" << n;
  }
}

// The bit-witness split against the compact-digit path and the CPU: 0/1
// scalars like a SnapDeals witness (~51% 0, ~47% 1), dense and density-masked.
TEST_F(MsmGpuTest, WitnessLikeScalarsWithAndWithoutTheSplit) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  std::vector<ff::Fr> scalars(kMaxN);
  for (auto& x : scalars) {
    const unsigned r = unsigned(rng() % 1000);
    x = r < 515 ? ff::Fr::Zero() : r < 985 ? ff::Fr::One() : ff::Fr::Random(rng);
  }
  for (bool split : {true, false}) {
    MsmGpuTimings t;
    G1Msm msm;
    const ec::G1Affine want = msm::MsmG1(*bases_, scalars).ToAffine();
    EXPECT_EQ(msm.Run(*device_bases_, scalars.data(), kMaxN, {.split_ones = split}, &t).ToAffine(), want)
        << "split=" << split;
    if (split) {
      EXPECT_GT(t.ones, kMaxN / 3);
      EXPECT_LT(t.tail, kMaxN / 20);
    } else {
      EXPECT_EQ(t.ones, 0u);
    }
    msm::DensityBitmap density(kMaxN);
    for (size_t i = 0; i < kMaxN; ++i) density.Set(i, rng() % 5 != 0);
    const std::span<const ec::G1Affine> used = std::span(*bases_).first(density.Count());
    EXPECT_EQ(msm.RunDensity(*device_bases_, scalars.data(), density, {.split_ones = split}).ToAffine(),
              msm::MsmG1Density(used, scalars, density).ToAffine())
        << "density, split=" << split;
  }
}

// Bases left in host memory, streamed in slices (several slices, a last
// partial one, slices of whole density words), with and without the split.
TEST_F(MsmGpuTest, StreamedBasesMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const size_t n = 10000;
  std::vector<ff::Fr> scalars(n);
  for (auto& x : scalars) x = rng() % 3 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(rng() % 2);
  const std::span<const ec::G1Affine> host(bases_->data(), n);
  const ec::G1Affine want = msm::MsmG1(host, scalars).ToAffine();
  msm::DensityBitmap density(n);
  for (size_t i = 0; i < n; ++i) density.Set(i, rng() % 3 != 0);
  const ec::G1Affine want_density = msm::MsmG1Density(host.first(density.Count()), scalars, density).ToAffine();
  G1Msm msm;
  for (size_t slice : {size_t(0), size_t(64), size_t(1000), size_t(3333)}) {
    for (bool split : {true, false}) {
      const MsmGpuOptions o{.split_ones = split, .stream_slice = slice};
      MsmGpuTimings t;
      EXPECT_EQ(msm.RunStreamed(host, scalars.data(), n, o, &t).ToAffine(), want) << slice << " " << split;
      EXPECT_EQ(t.slices, slice == 0 ? 1u : (n + slice - 1) / slice);
      EXPECT_EQ(msm.RunDensityStreamed(host, scalars.data(), density, o).ToAffine(), want_density)
          << "density " << slice << " " << split;
    }
  }
  std::vector<ff::Fr> too_many(n + 1, ff::Fr::One());
  EXPECT_THROW(msm.RunStreamed(host, too_many.data(), n + 1), std::invalid_argument);
}

// The batched affine accumulation (MsmGpuOptions::batch; by default only from
// 2^29 digit entries, which no test here reaches) against the CPU MSM: random,
// skewed and witness-like scalars, repeated, opposite and infinite bases
// (P + P and P + (-P) inside a chunk's affine sum), chunk sizes that put
// chunk and thread boundaries inside buckets, density masks.
TEST_F(MsmGpuTest, BatchedAffineAccumulationMatchesCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const std::vector<ff::Fr> random = RandomScalars(rng, kMaxN);
  std::vector<ff::Fr> skewed(kMaxN), witness(kMaxN);
  for (auto& x : skewed) x = rng() % 8 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(1 + rng() % 3);
  for (auto& x : witness) x = rng() % 2 ? ff::Fr::One() : rng() % 20 ? ff::Fr::Zero() : ff::Fr::Random(rng);
  const EdgeInputs edge = EdgeBuckets();
  const std::vector<ec::G1Affine>& edge_bases = edge.bases;
  const std::vector<ff::Fr>& edge_scalars = edge.scalars;
  const G1DeviceBases edge_dev(edge_bases);
  for (int batch : {8, 16, 32}) {
    const std::string what = "batch " + std::to_string(batch);
    ExpectMatchesCpu(*device_bases_, *bases_, random, {.batch = batch}, what + " random");
    ExpectMatchesCpu(*device_bases_, *bases_, random, {.window_bits = 13, .chunk = 3, .batch = batch},
                     what + " random, chunk 3");
    ExpectMatchesCpu(*device_bases_, *bases_, skewed, {.chunk = 1, .batch = batch}, what + " skewed, chunk 1");
    ExpectMatchesCpu(*device_bases_, *bases_, witness, {.split_ones = false, .batch = batch}, what + " witness");
    ExpectMatchesCpu(edge_dev, edge_bases, edge_scalars, {.window_bits = 5, .chunk = 2, .batch = batch},
                     what + " edge");
    msm::DensityBitmap density(kMaxN);
    for (size_t i = 0; i < kMaxN; ++i) density.Set(i, rng() % 3 != 0);
    G1Msm msm;
    EXPECT_EQ(msm.RunDensity(*device_bases_, random.data(), density, {.batch = batch}).ToAffine(),
              msm::MsmG1Density(std::span(*bases_).first(density.Count()), random, density).ToAffine())
        << what << " density";
  }
  G1Msm msm;
  for (int bad : {-2, 2, 3, 64}) {
    EXPECT_THROW(msm.Run(*device_bases_, random.data(), 100, {.batch = bad}), std::invalid_argument) << bad;
  }
}

// Window-major digit entries (MsmGpuOptions::window_major; by default only
// from 2^18 scalars nearly all >= 2, so forced here): every window sorted
// apart on c - 1 bits, zero digits as skipped slots. Random, skewed (zero
// digits in most windows), witness-like with and without the split, edge
// buckets, density-masked, with every accumulation, against the CPU MSM.
TEST_F(MsmGpuTest, WindowMajorDigitsMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const std::vector<ff::Fr> random = RandomScalars(rng, kMaxN);
  const std::vector<ff::Fr> skewed = SkewedScalars(rng, kMaxN), witness = WitnessScalars(rng, kMaxN);
  const EdgeInputs edge = EdgeBuckets();
  const G1DeviceBases edge_dev(edge.bases);
  for (int batch : {0, 32}) {
    const std::string what = "window-major, batch " + std::to_string(batch);
    ExpectMatchesCpu(*device_bases_, *bases_, random, {.window_major = 1, .batch = batch}, what + " random");
    for (uint32_t c : {4u, 9u, 16u}) {
      ExpectMatchesCpu(*device_bases_, *bases_, random,
                       {.window_bits = c, .chunk = 3, .window_major = 1, .batch = batch}, what + " random, chunk 3");
    }
    ExpectMatchesCpu(*device_bases_, *bases_, skewed, {.chunk = 1, .window_major = 1, .batch = batch},
                     what + " skewed, chunk 1");
    for (bool split : {true, false}) {
      ExpectMatchesCpu(*device_bases_, *bases_, witness, {.split_ones = split, .window_major = 1, .batch = batch},
                       what + " witness");
    }
    ExpectMatchesCpu(edge_dev, edge.bases, edge.scalars,
                     {.window_bits = 5, .chunk = 2, .window_major = 1, .batch = batch}, what + " edge");
    msm::DensityBitmap density(kMaxN);
    for (size_t i = 0; i < kMaxN; ++i) density.Set(i, rng() % 3 != 0);
    G1Msm msm;
    MsmGpuTimings t;
    EXPECT_EQ(
        msm.RunDensity(*device_bases_, random.data(), density, {.window_major = 1, .batch = batch}, &t).ToAffine(),
        msm::MsmG1Density(std::span(*bases_).first(density.Count()), random, density).ToAffine())
        << what << " density";
    EXPECT_TRUE(t.window_major);
  }
  for (MulPipes pipes : {MulPipes::kFp64, MulPipes::kBoth}) {
    ExpectMatchesCpu(*device_bases_, *bases_, random, {.window_major = 1, .mul_pipes = pipes},
                     "window-major, pipes " + std::to_string(int(pipes)));
  }
  // Odd counts (the H MSM's 2^k - 1: windows' sort buffers at offsets that
  // are not 16-byte aligned), one scalar, and all zeros.
  for (size_t n : {size_t(1), size_t(3), size_t(4097), kMaxN - 1}) {
    ExpectMatchesCpu(*device_bases_, *bases_, std::span(random).first(n), {.window_major = 1}, "window-major, odd n");
  }
  const std::vector<ff::Fr> zeros(1000, ff::Fr::Zero());
  EXPECT_TRUE(G1Msm().Run(*device_bases_, zeros.data(), zeros.size(), {.window_major = 1}).IsInfinity());
  // Bases streamed from host memory, slice by slice, each slice window-major.
  EXPECT_EQ(G1Msm().RunStreamed(*bases_, random.data(), kMaxN, {.window_major = 1, .stream_slice = 5000}).ToAffine(),
            msm::MsmG1(*bases_, random).ToAffine())
      << "window-major, streamed";
  G1Msm msm;
  MsmGpuTimings t;
  msm.Run(*device_bases_, random.data(), 1000, {}, &t);
  EXPECT_FALSE(t.window_major) << "the default below 2^18 scalars is compact";
  for (int bad : {-2, 2}) {
    EXPECT_THROW(msm.Run(*device_bases_, random.data(), 100, {.window_major = bad}), std::invalid_argument) << bad;
  }
}

// The XYZZ accumulation on FpDfma and FpBoth (MsmGpuOptions::mul_pipes: limb
// products on the FP64 pipe) against the CPU MSM, on random, skewed and edge
// inputs (P + P and P + (-P) in a bucket).
TEST_F(MsmGpuTest, DfmaAccumulationMatchesCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const std::vector<ff::Fr> random = RandomScalars(rng, kMaxN);
  std::vector<ff::Fr> skewed(kMaxN);
  for (auto& x : skewed) x = rng() % 8 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(1 + rng() % 3);
  const EdgeInputs edge = EdgeBuckets();
  const std::vector<ec::G1Affine>& edge_bases = edge.bases;
  const std::vector<ff::Fr>& edge_scalars = edge.scalars;
  const G1DeviceBases edge_dev(edge_bases);
  const struct {
    MulPipes pipes;
    int batch;
  } cases[] = {{MulPipes::kFp64, 0}, {MulPipes::kFp64, -1}, {MulPipes::kBoth, 0}, {MulPipes::kBoth, -1}};
  for (const auto& c : cases) {
    const std::string what = "pipes " + std::to_string(int(c.pipes)) + ", batch " + std::to_string(c.batch);
    ExpectMatchesCpu(*device_bases_, *bases_, random, {.batch = c.batch, .mul_pipes = c.pipes}, what + " random");
    ExpectMatchesCpu(*device_bases_, *bases_, skewed, {.chunk = 1, .batch = c.batch, .mul_pipes = c.pipes},
                     what + " skewed, chunk 1");
    ExpectMatchesCpu(edge_dev, edge_bases, edge_scalars,
                     {.window_bits = 5, .chunk = 2, .batch = c.batch, .mul_pipes = c.pipes}, what + " edge");
  }
  G1Msm msm;
  MsmGpuTimings t;
  msm.Run(*device_bases_, random.data(), 1000, {.mul_pipes = MulPipes::kBoth}, &t);
  EXPECT_EQ(t.mul_pipes, MulPipes::kBoth);
  EXPECT_EQ(t.batch, 0u);
  for (int bad : {-1, 3}) {
    EXPECT_THROW(msm.Run(*device_bases_, random.data(), 100, {.mul_pipes = MulPipes(bad)}), std::invalid_argument)
        << bad;
  }
  for (MulPipes pipes : {MulPipes::kFp64, MulPipes::kBoth}) {
    EXPECT_THROW(msm.Run(*device_bases_, random.data(), 100, {.batch = 32, .mul_pipes = pipes}), std::invalid_argument);
  }
}

// Shifted bases (shifted_bases.hpp): the device-built table against the
// engine's doublings at a few entries, then MSMs over it (every window into
// one set of buckets) against the CPU MSM: random scalars at several widths
// (22 and 24, wider than the plain path allows) and odd counts, skewed with
// chunks of 1, witness-like with and without the split, the batched
// accumulation, device-resident scalars, and the edge buckets.
TEST_F(MsmGpuTest, ShiftedBasesMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const std::vector<ff::Fr> random = RandomScalars(rng, kMaxN);
  const std::vector<ff::Fr> skewed = SkewedScalars(rng, kMaxN), witness = WitnessScalars(rng, kMaxN);
  auto expect = [&](const G1ShiftedBases& shifted, std::span<const ec::G1Affine> host, std::span<const ff::Fr> s,
                    const MsmGpuOptions& o, const std::string& what) {
    G1Msm msm;
    MsmGpuTimings t;
    EXPECT_EQ(msm.Run(shifted, s.data(), s.size(), o, &t).ToAffine(), msm::MsmG1(host.first(s.size()), s).ToAffine())
        << what << " n=" << s.size() << " c=" << shifted.window_bits() << " chunk=" << o.chunk;
    EXPECT_TRUE(t.shifted) << what;
    EXPECT_EQ(t.window_bits, shifted.window_bits()) << what;
  };
  for (uint32_t c : {9u, 16u, 22u, 24u}) {
    const G1ShiftedBases shifted(*device_bases_, kMaxN, c);
    ASSERT_EQ(shifted.windows(), SignedDigitWindows(c));
    // Entry w n + i = 2^(c w) P_i, read back for a few (w, i).
    for (uint32_t w : {0u, 1u, shifted.windows() - 1}) {
      for (size_t i : {size_t(0), size_t(12345), kMaxN - 1}) {
        G1Affine got;
        CUZK_CUDA_CHECK(cudaMemcpy(&got, shifted.data() + w * kMaxN + i, sizeof(got), cudaMemcpyDeviceToHost));
        ec::G1Jacobian want = ec::G1Jacobian::FromAffine((*bases_)[i]);
        for (uint32_t k = 0; k < c * w; ++k) want = want.Double();
        EXPECT_EQ(ec::G1Affine::FromXY(got.x.ToHost(), got.y.ToHost()), want.ToAffine()) << "c=" << c << " w=" << w;
      }
    }
    const std::string what = "shifted c=" + std::to_string(c);
    expect(shifted, *bases_, random, {}, what + " random");
    expect(shifted, *bases_, random, {.window_bits = c, .chunk = 3}, what + " random, chunk 3");
    for (size_t n : {size_t(1), size_t(3), size_t(4097), kMaxN - 1}) {
      expect(shifted, *bases_, std::span(random).first(n), {}, what + " odd n");
    }
  }
  const G1ShiftedBases shifted(*device_bases_, kMaxN, 12);
  expect(shifted, *bases_, skewed, {.chunk = 1}, "shifted skewed, chunk 1");
  for (bool split : {true, false}) expect(shifted, *bases_, witness, {.split_ones = split}, "shifted witness");
  expect(shifted, *bases_, random, {.batch = 32}, "shifted batched");
  // Host scalars copied in batches (the later ones under the sums), from
  // pageable and from pinned memory; witness-like scalars with the split.
  {
    PinnedBuffer<ff::Fr> pinned(kMaxN);
    std::copy(random.begin(), random.end(), pinned.data());
    const ec::G1Affine want = msm::MsmG1(*bases_, random).ToAffine();
    const ec::G1Affine want_witness = msm::MsmG1(*bases_, witness).ToAffine();
    for (uint32_t batches : {2u, 3u, 7u}) {
      const std::string what = "shifted, upload batches " + std::to_string(batches);
      G1Msm msm;
      MsmGpuTimings t;
      EXPECT_EQ(msm.Run(shifted, random.data(), kMaxN, {.upload_batches = batches}, &t).ToAffine(), want) << what;
      EXPECT_EQ(t.upload_batches, batches) << what;
      EXPECT_EQ(msm.Run(shifted, pinned.data(), kMaxN, {.upload_batches = batches}, &t).ToAffine(), want)
          << what << " pinned";
      EXPECT_EQ(msm.Run(shifted, random.data(), kMaxN, {.chunk = 3, .upload_batches = batches}).ToAffine(), want)
          << what << " chunk 3";
      EXPECT_EQ(msm.Run(shifted, witness.data(), kMaxN, {.upload_batches = batches}).ToAffine(), want_witness)
          << what << " witness";
    }
    G1Msm msm;
    MsmGpuTimings t;
    msm.Run(shifted, random.data(), kMaxN, {.upload_batches = 1}, &t);
    EXPECT_EQ(t.upload_batches, 1u) << "one copy";
  }
  DeviceBuffer<ff::Fr> on_device(kMaxN);
  Stream stream;
  on_device.CopyFromHost(random, stream);
  stream.Synchronize();
  EXPECT_EQ(G1Msm().Run(shifted, on_device.data(), kMaxN, {.scalars_at = ScalarsAt::kDevice}).ToAffine(),
            msm::MsmG1(*bases_, random).ToAffine())
      << "shifted, device scalars";
  const std::vector<ff::Fr> zeros(1000, ff::Fr::Zero());
  EXPECT_TRUE(G1Msm().Run(shifted, zeros.data(), zeros.size()).IsInfinity());
  const EdgeInputs edge = EdgeBuckets();
  const G1DeviceBases edge_dev(edge.bases);
  for (uint32_t c : {5u, 13u}) {
    expect(G1ShiftedBases(edge_dev, edge.bases.size(), c), edge.bases, edge.scalars, {.chunk = 2}, "shifted edge");
  }
  // More points than one build slice (2^22): the fixture's bases tiled, the
  // second slice's entries read back, the MSM against the plain bases' (no
  // CPU MSM at this size).
  {
    const size_t big = (size_t(1) << 22) + 17;
    std::vector<ec::G1Affine> tiled(big);
    for (size_t i = 0; i < big; ++i) tiled[i] = (*bases_)[(i * 7 + 3) % kMaxN];
    const G1DeviceBases big_dev(tiled);
    const G1ShiftedBases big_shifted(big_dev, big, 16);
    for (size_t i : {size_t(1) << 22, big - 1}) {
      G1Affine got;
      CUZK_CUDA_CHECK(cudaMemcpy(&got, big_shifted.data() + 2 * big + i, sizeof(got), cudaMemcpyDeviceToHost));
      ec::G1Jacobian want = ec::G1Jacobian::FromAffine(tiled[i]);
      for (int k = 0; k < 32; ++k) want = want.Double();
      EXPECT_EQ(ec::G1Affine::FromXY(got.x.ToHost(), got.y.ToHost()), want.ToAffine()) << "second slice, i=" << i;
    }
    std::vector<ff::Fr> s(big);
    for (auto& x : s) x = ff::Fr::Random(rng);
    G1Msm msm;
    EXPECT_EQ(msm.Run(big_shifted, s.data(), big).ToAffine(), msm.Run(big_dev, s.data(), big).ToAffine())
        << "shifted over two build slices";
  }
  // Fewer copies than windows (window w adds copy w mod k into bucket set w /
  // k; a shorter last set, whose sort may take another number of passes,
  // at small counts), and k = 1 (the bases alone).
  for (const auto& [c, copies] : {std::pair{16u, 3u}, std::pair{22u, 5u}, std::pair{9u, 4u}, std::pair{12u, 1u}}) {
    const G1ShiftedBases partial(*device_bases_, kMaxN, c, copies);
    EXPECT_EQ(partial.copies(), copies);
    EXPECT_EQ(partial.bytes(), G1ShiftedBases::Bytes(kMaxN, c, copies));
    const std::string what = "shifted c=" + std::to_string(c) + " copies=" + std::to_string(copies);
    expect(partial, *bases_, random, {.chunk = 3}, what);
    for (size_t n : {size_t(1), size_t(3), size_t(100), size_t(1000), size_t(4097)}) {
      expect(partial, *bases_, std::span(random).first(n), {}, what + " small n");
    }
    expect(partial, *bases_, witness, {}, what + " witness");
  }
  EXPECT_THROW(G1ShiftedBases(*device_bases_, 100, 12, 23), std::invalid_argument);
  // Fewer table points than scalars, another width, a bad width or count.
  G1Msm msm;
  EXPECT_THROW(msm.Run(G1ShiftedBases(*device_bases_, 100, 12), random.data(), 101), std::invalid_argument);
  EXPECT_THROW(msm.Run(shifted, random.data(), 100, {.window_bits = 13}), std::invalid_argument);
  EXPECT_THROW(G1ShiftedBases(*device_bases_, kMaxN, 25), std::invalid_argument);
  EXPECT_THROW(G1ShiftedBases(*device_bases_, kMaxN + 1, 12), std::invalid_argument);
}

TEST_F(MsmGpuTest, BadArgumentsAreRejected) {
  CUZK_REQUIRE_GPU();
  std::vector<ff::Fr> scalars(kMaxN + 1, ff::Fr::One());
  G1Msm msm;
  EXPECT_THROW(msm.Run(*device_bases_, scalars.data(), kMaxN + 1), std::invalid_argument);
  EXPECT_THROW(msm.Run(*device_bases_, scalars.data(), 10, {.window_bits = 3}), std::invalid_argument);
  EXPECT_THROW(msm.Run(*device_bases_, scalars.data(), 10, {.window_bits = 23}), std::invalid_argument);
  EXPECT_THROW(msm.Run(*device_bases_, nullptr, 10), std::invalid_argument);
  msm::DensityBitmap too_dense(kMaxN + 1, true);
  EXPECT_THROW(msm.RunDensity(*device_bases_, scalars.data(), too_dense), std::invalid_argument);
  EXPECT_THROW(msm.RunDensity(*device_bases_, scalars.data(), DeviceDensity(too_dense)), std::invalid_argument);
}

// ---- G2 --------------------------------------------------------------------------

TEST(MsmGpuG2Test, RandomSkewedAndDensityMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  constexpr size_t kN = size_t(1) << 14;
  std::vector<ff::Fr> k(kN);
  for (auto& x : k) x = ff::Fr::Random(rng);
  std::vector<ec::G2Affine> bases(kN);
  groth16::FixedBaseTable<ec::G2Curve>(ec::G2Affine::Generator(), 8).MulBatch(k, bases);
  bases[1] = bases[0];                                            // repeated
  bases[2] = (-ec::G2Jacobian::FromAffine(bases[0])).ToAffine();  // opposite
  bases[3] = ec::G2Affine::Infinity();
  const G2DeviceBases device(bases);
  G2Msm msm;
  for (size_t n : {size_t(1), size_t(5), size_t(1000), size_t(4099), kN}) {
    std::vector<ff::Fr> scalars(n);
    for (auto& x : scalars) x = ff::Fr::Random(rng);
    const ec::G2Affine want = msm::MsmG2(std::span(bases).first(n), scalars).ToAffine();
    MsmGpuTimings t;
    EXPECT_EQ(msm.Run(device, scalars.data(), n, {}, &t).ToAffine(), want) << "n=" << n << " c=" << t.window_bits;
    EXPECT_EQ(msm.Run(device, scalars.data(), n, {.window_bits = 7, .chunk = 2}).ToAffine(), want) << "n=" << n;
  }
  std::vector<ff::Fr> skewed(kN);
  for (auto& x : skewed) x = rng() % 8 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(1 + rng() % 3);
  EXPECT_EQ(msm.Run(device, skewed.data(), kN).ToAffine(), msm::MsmG2(bases, skewed).ToAffine()) << "skewed";
  for (uint32_t c : {0u, 6u}) {
    EXPECT_EQ(msm.Run(device, skewed.data(), kN, {.window_bits = c, .chunk = 3, .window_major = 1}).ToAffine(),
              msm::MsmG2(bases, skewed).ToAffine())
        << "skewed, window-major, c=" << c;
  }
  std::vector<ff::Fr> witness(kN);
  for (auto& x : witness) x = rng() % 2 ? ff::Fr::One() : rng() % 20 ? ff::Fr::Zero() : ff::Fr::Random(rng);
  const ec::G2Affine want_witness = msm::MsmG2(bases, witness).ToAffine();
  for (bool split : {true, false}) {
    EXPECT_EQ(msm.Run(device, witness.data(), kN, {.split_ones = split}).ToAffine(), want_witness) << split;
    EXPECT_EQ(msm.RunStreamed(bases, witness.data(), kN, {.split_ones = split, .stream_slice = 5000}).ToAffine(),
              want_witness)
        << "streamed " << split;
  }
  // No batched affine accumulation for G2 (slower there): refused by name.
  EXPECT_THROW(msm.Run(device, k.data(), kN, {.batch = 16}), std::invalid_argument);
  EXPECT_THROW(msm.Run(device, k.data(), kN, {.mul_pipes = MulPipes::kFp64}), std::invalid_argument);
  msm::DensityBitmap density(kN);
  for (size_t i = 0; i < kN; ++i) density.Set(i, rng() % 3 != 0);
  const std::span<const ec::G2Affine> used = std::span(bases).first(density.Count());
  EXPECT_EQ(msm.RunDensity(device, k.data(), density).ToAffine(), msm::MsmG2Density(used, k, density).ToAffine());
  EXPECT_EQ(msm.RunDensity(device, k.data(), DeviceDensity(density)).ToAffine(),
            msm::MsmG2Density(used, k, density).ToAffine());
  // Over shifted G2 bases (the benchmarks' G2 table): widths 9 and 16, a
  // table of 3 copies, witness-like scalars, upload batches from pageable
  // and pinned memory; the repeated, opposite and infinite bases included.
  const ec::G2Affine want_k = msm::MsmG2(bases, k).ToAffine();
  for (uint32_t c : {9u, 16u}) {
    const G2ShiftedBases shifted(device, kN, c);
    EXPECT_EQ(msm.Run(shifted, k.data(), kN, {.upload_batches = 1}).ToAffine(), want_k) << "shifted c=" << c;
    EXPECT_EQ(msm.Run(shifted, witness.data(), kN, {.chunk = 3}).ToAffine(), want_witness) << "shifted witness c=" << c;
    EXPECT_EQ(msm.Run(shifted, k.data(), kN, {.upload_batches = 3}).ToAffine(), want_k) << "shifted batches c=" << c;
  }
  PinnedBuffer<ff::Fr> pinned(kN);
  std::copy(k.begin(), k.end(), pinned.data());
  EXPECT_EQ(msm.Run(G2ShiftedBases(device, kN, 12, 3), pinned.data(), kN, {.upload_batches = 2}).ToAffine(), want_k)
      << "3 copies, pinned, 2 batches";
}

}  // namespace
}  // namespace cuzk::cuda
