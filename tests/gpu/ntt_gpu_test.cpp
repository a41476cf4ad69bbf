// GPU NTT (all four kinds, both kernel variants, device-resident and host
// round-trip APIs) against the CPU reference NTT, bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/ntt/ntt.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "cuda/testing/reference_ntt.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

testing::ReferenceNttKind ReferenceKind(NttKind k) {
  switch (k) {
    case NttKind::kForward: return testing::ReferenceNttKind::kForward;
    case NttKind::kInverse: return testing::ReferenceNttKind::kInverse;
    case NttKind::kCosetForward: return testing::ReferenceNttKind::kCosetForward;
    default: return testing::ReferenceNttKind::kCosetInverse;
  }
}

std::vector<ff::Fr> RandomVector(std::mt19937_64& rng, size_t n) {
  std::vector<ff::Fr> v(n);
  for (auto& x : v) x = ff::Fr::Random(rng);
  return v;
}

constexpr NttKind kAllKinds[] = {NttKind::kForward, NttKind::kInverse, NttKind::kCosetForward, NttKind::kCosetInverse};

TEST(NttGpuTest, DeviceResidentMatchesCpuForAllKindsAndVariants) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  NttEngine engine(0);
  Stream stream;
  const NttKernelConfig configs[] = {
      {2, 10, 10, true},                     // default: radix-4, fused bit reversal
      {3, 11, 10, true},                     // radix-8
      {2, 10, 10, false},                    // separate bit-reversal pass
      {2, 10, 10, true, false},              // stage 0 multiplied by its unit twiddle (the skip's reference)
      {2, 10, 10, true, true, false},        // direction read at run time (the specialization's reference)
      {2, 10, 10, true, true, true, false},  // forward kinds with 3-block kernels too
  };
  for (unsigned log_n : {1u, 2u, 3u, 5u, 8u, 10u, 11u, 12u, 13u, 15u, 16u, 19u, 20u, 21u, 22u}) {
    const size_t n = size_t(1) << log_n;
    const auto input = RandomVector(rng, n);
    DeviceBuffer<ff::Fr> buf(n);
    std::vector<ff::Fr> got(n);
    for (NttKind kind : kAllKinds) {
      auto want = input;
      testing::ReferenceNtt(want, ReferenceKind(kind));
      for (const NttKernelConfig& config : configs) {
        NttOptions opt;
        opt.kernel = config;
        buf.CopyFromHost(input, stream);
        engine.Run(kind, buf.data(), n, stream, opt);
        buf.CopyToHost(got, stream);
        stream.Synchronize();
        ASSERT_EQ(got, want) << "kind " << int(kind) << " log_n=" << log_n << " radix_log=" << config.radix_log
                             << " fuse_bit_reverse=" << config.fuse_bit_reverse;
      }
    }
  }
}

TEST(NttGpuTest, HostRoundTripAndCustomShift) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  NttEngine engine(0);
  Stream stream;
  NttOptions opt;
  opt.coset_shift = ff::Fr::FromUint64(5);
  for (unsigned log_n : {10u, 17u}) {
    const size_t n = size_t(1) << log_n;
    const auto input = RandomVector(rng, n);
    PinnedBuffer<ff::Fr> pinned(n);
    for (NttKind kind : kAllKinds) {
      auto want = input;
      testing::ReferenceNtt(want, ReferenceKind(kind), 0, opt.coset_shift);
      std::copy(input.begin(), input.end(), pinned.data());
      engine.RunHost(kind, pinned.span(), stream, opt);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), pinned.data())) << "kind " << int(kind) << " log_n=" << log_n;
    }
  }
}

// NttOptions::scale folded into each kind's multiplications: a random
// scale, n (the inverse kinds' raw sums) and n^-1, one and several passes.
TEST(NttGpuTest, ScaledKindsMatchScaledReference) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  NttEngine engine(0);
  Stream stream;
  for (unsigned log_n : {3u, 10u, 17u, 20u}) {
    const size_t n = size_t(1) << log_n;
    const auto input = RandomVector(rng, n);
    DeviceBuffer<ff::Fr> buf(n);
    std::vector<ff::Fr> got(n);
    const ff::Fr size = ff::Fr::FromUint64(n);
    for (NttKind kind : kAllKinds) {
      auto reference = input;
      testing::ReferenceNtt(reference, ReferenceKind(kind));
      for (const ff::Fr& scale : {ff::Fr::Random(rng), size, size.Inverse()}) {
        auto want = reference;
        for (auto& x : want) x *= scale;
        NttOptions opt;
        opt.scale = scale;
        buf.CopyFromHost(input, stream);
        engine.Run(kind, buf.data(), n, stream, opt);
        buf.CopyToHost(got, stream);
        stream.Synchronize();
        ASSERT_EQ(got, want) << "kind " << int(kind) << " log_n=" << log_n;
      }
    }
  }
}

TEST(NttGpuTest, LargerTwiddleTableServesSmallerSizes) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  NttEngine engine(0);
  engine.Prepare(23);  // table for 2^23; the 2^12 transform reads it at stride 2^11
  Stream stream;
  const size_t n = size_t(1) << 12;
  const auto input = RandomVector(rng, n);
  DeviceBuffer<ff::Fr> buf(n);
  std::vector<ff::Fr> got(n);
  for (NttKind kind : kAllKinds) {
    auto want = input;
    testing::ReferenceNtt(want, ReferenceKind(kind));
    buf.CopyFromHost(input, stream);
    engine.Run(kind, buf.data(), n, stream);
    buf.CopyToHost(got, stream);
    stream.Synchronize();
    ASSERT_EQ(got, want) << "kind " << int(kind);
  }
}

TEST(NttGpuTest, RejectsBadSizesAndPointers) {
  CUZK_REQUIRE_GPU();
  NttEngine engine(0);
  DeviceBuffer<ff::Fr> buf(64);
  EXPECT_THROW(engine.Run(NttKind::kForward, buf.data(), 48, nullptr), std::invalid_argument);
  EXPECT_THROW(engine.Run(NttKind::kForward, buf.data(), 1, nullptr), std::invalid_argument);
  EXPECT_THROW(
      engine.Run(NttKind::kForward, reinterpret_cast<ff::Fr*>(reinterpret_cast<char*>(buf.data()) + 8), 32, nullptr),
      std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::cuda
