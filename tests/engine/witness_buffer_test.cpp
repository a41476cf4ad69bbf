// The SnapDeals witness computed into a reused buffer (issue 15: no
// allocation, no copy per partition): byte for byte the fresh computation's,
// whatever the buffer held before (another partition's witness, another
// shape's, a poison pattern), so nothing of an earlier partition can leak
// into a proof. And the WitnessBufferPool the daemon's synthesis leases from.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/circuits/snapdeals/witness/witness_buffer_pool.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::snapdeals::witness {
namespace {

using ff::Fr;
using namespace std::chrono_literals;

struct Partition {
  filecoin::SectorShape shape;
  CircuitWitness w;
};

// Every partition of a generated test sector.
std::vector<Partition> Partitions(uint64_t sector_bytes, uint64_t seed) {
  TestSectorOptions o;
  o.sector_bytes = sector_bytes;
  o.seed = seed;
  o.threads = 2;
  const TestSector s = GenerateTestSector(o);
  std::vector<Partition> out;
  for (size_t i = 0; i < s.partition_proofs.size(); ++i) {
    out.push_back({s.shape, MakeCircuitWitness(s.shape, s.partition_indices[i], s.commitments, s.partition_proofs[i])});
  }
  return out;
}

// Byte equality (not Fr equality: a non-canonical leftover must not pass).
void ExpectSameBytes(std::span<const Fr> got, const std::vector<Fr>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  if (std::memcmp(got.data(), want.data(), want.size() * sizeof(Fr)) == 0) return;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(Fr)) != 0) {
      ADD_FAILURE() << what << ": first difference at variable " << i << " of " << want.size();
      return;
    }
  }
}

std::vector<Fr> Fresh(const Partition& p) {
  return ComputeEmptySectorUpdateWitness(p.shape, p.w, {.threads = 2}).values;
}

// Partition A into a buffer, then partition B into the same buffer: B equals
// its fresh computation (and so does A), for two partitions of one 16 KiB
// sector and for 1 KiB and 2 KiB sectors of different seeds.
TEST(WitnessBufferTest, ReusedBufferEqualsFreshComputation) {
  const uint64_t seed = test::TestSeed();
  for (const auto& [bytes, pair] : std::vector<std::pair<uint64_t, std::vector<Partition>>>{
           {1024, {Partitions(1024, seed)[0], Partitions(1024, seed + 1)[0]}},
           {2048, {Partitions(2048, seed)[0], Partitions(2048, seed + 1)[0]}},
           {16384, Partitions(16384, seed)}}) {
    SCOPED_TRACE(bytes);
    ASSERT_EQ(pair.size(), 2u);
    const std::vector<Fr> fresh_a = Fresh(pair[0]), fresh_b = Fresh(pair[1]);
    ASSERT_NE(fresh_a, fresh_b);  // else the test could not tell the two apart
    std::vector<Fr> buffer;
    std::span<const Fr> z = ComputeEmptySectorUpdateWitnessInto(pair[0].shape, pair[0].w, buffer, {.threads = 2});
    ExpectSameBytes(z, fresh_a, "A");
    const Fr* storage = buffer.data();
    z = ComputeEmptySectorUpdateWitnessInto(pair[1].shape, pair[1].w, buffer, {.threads = 2});
    ExpectSameBytes(z, fresh_b, "B after A");
    EXPECT_EQ(buffer.data(), storage) << "the buffer was reallocated";
    EXPECT_EQ(z.data(), buffer.data());
    EXPECT_EQ(z.size(), EmptySectorUpdateVariableCount(pair[1].shape));
    EXPECT_EQ(z.size(), kEmptySectorUpdateNumInputs + EmptySectorUpdateAuxCount(pair[1].shape));
  }
}

// A buffer whose every byte was 0xA5 or 0xFF (neither a valid Montgomery
// form) comes out byte-equal to the fresh witness: every value is written.
TEST(WitnessBufferTest, EveryValueIsWrittenOverAPoisonedBuffer) {
  const uint64_t seed = test::TestSeed();
  for (uint64_t bytes : {1024, 2048}) {
    SCOPED_TRACE(bytes);
    const Partition p = Partitions(bytes, seed)[0];
    const std::vector<Fr> fresh = Fresh(p);
    for (int poison : {0xA5, 0xFF}) {
      std::vector<Fr> buffer(fresh.size());
      std::memset(static_cast<void*>(buffer.data()), poison, buffer.size() * sizeof(Fr));
      ComputeEmptySectorUpdateWitnessInto(p.shape, p.w, std::span<Fr>(buffer), {.threads = 3});
      ExpectSameBytes(buffer, fresh, "span over poison");
      // The vector form within a larger poisoned capacity (a shape's buffer reused for a smaller one).
      std::vector<Fr> big(fresh.size() + 4096);
      std::memset(static_cast<void*>(big.data()), poison, big.size() * sizeof(Fr));
      const Fr* storage = big.data();
      const std::span<const Fr> z = ComputeEmptySectorUpdateWitnessInto(p.shape, p.w, big, {.threads = 1});
      ExpectSameBytes(z, fresh, "vector over poison");
      EXPECT_EQ(big.data(), storage);
    }
  }
}

// A buffer shared by two shapes: 2 KiB, then 1 KiB (smaller: same storage),
// then 2 KiB again (within the capacity: same storage), each equal to fresh.
TEST(WitnessBufferTest, OneBufferServesShapesOfDifferentSizes) {
  const uint64_t seed = test::TestSeed();
  const Partition small = Partitions(1024, seed)[0], large = Partitions(2048, seed)[0];
  const std::vector<Fr> fresh_small = Fresh(small), fresh_large = Fresh(large);
  ASSERT_LT(fresh_small.size(), fresh_large.size());
  std::vector<Fr> buffer;
  ComputeEmptySectorUpdateWitnessInto(large.shape, large.w, buffer);
  const Fr* storage = buffer.data();
  ExpectSameBytes(ComputeEmptySectorUpdateWitnessInto(small.shape, small.w, buffer), fresh_small, "small after large");
  ExpectSameBytes(ComputeEmptySectorUpdateWitnessInto(large.shape, large.w, buffer), fresh_large, "large again");
  EXPECT_EQ(buffer.data(), storage);
  // Growing past the capacity gives new storage, still exact.
  std::vector<Fr> tiny(10);
  ExpectSameBytes(ComputeEmptySectorUpdateWitnessInto(large.shape, large.w, tiny), fresh_large, "grown");
}

TEST(WitnessBufferTest, WrongSizesAndWitnessesAreRefused) {
  const Partition p = Partitions(1024, test::TestSeed())[0];
  const uint64_t n = EmptySectorUpdateVariableCount(p.shape);
  std::vector<Fr> short_z(n - 1), long_z(n + 1);
  EXPECT_THROW(ComputeEmptySectorUpdateWitnessInto(p.shape, p.w, std::span<Fr>(short_z)), std::invalid_argument);
  EXPECT_THROW(ComputeEmptySectorUpdateWitnessInto(p.shape, p.w, std::span<Fr>(long_z)), std::invalid_argument);
  // A witness that does not fit the shape is refused before the buffer is touched.
  CircuitWitness bad = p.w;
  bad.challenges.pop_back();
  std::vector<Fr> buffer(3, Fr::One());
  EXPECT_THROW(ComputeEmptySectorUpdateWitnessInto(p.shape, bad, buffer), std::invalid_argument);
  EXPECT_EQ(buffer, std::vector<Fr>(3, Fr::One()));
}

// ---- WitnessBufferPool --------------------------------------------------------------

TEST(WitnessBufferPoolTest, ReusesBuffersAndPrefersTheSmallestThatFits) {
  WitnessBufferPool pool({.idle_keep = 1h});
  {
    auto a = pool.Acquire(100);
    auto b = pool.Acquire(1000);
    EXPECT_TRUE(a.values().empty());  // nothing idle yet: empty vectors, sized by the caller
    a.values().resize(100);
    b.values().resize(1000);
    const WitnessBufferPoolStats s = pool.Stats();
    EXPECT_EQ(s.leased, 2u);
    EXPECT_EQ(s.leased_peak, 2u);
    EXPECT_EQ(s.idle, 0u);
  }
  WitnessBufferPoolStats s = pool.Stats();
  EXPECT_EQ(s.leased, 0u);
  EXPECT_EQ(s.idle, 2u);
  EXPECT_GE(s.idle_bytes, 1100 * sizeof(Fr));
  {
    auto c = pool.Acquire(50);  // both fit: the smaller
    EXPECT_GE(c.values().capacity(), 100u);
    EXPECT_LT(c.values().capacity(), 1000u);
    auto d = pool.Acquire(5000);  // none fits: the largest, to grow
    EXPECT_GE(d.values().capacity(), 1000u);
    auto e = pool.Acquire(10);  // none idle: a new one
    EXPECT_EQ(e.values().capacity(), 0u);
    s = pool.Stats();
    EXPECT_EQ(s.acquires, 5u);
    EXPECT_EQ(s.reuses, 1u);  // c only (d must grow)
    EXPECT_EQ(s.leased_peak, 3u);
    // A moved lease gives its buffer back once.
    WitnessBufferPool::Lease moved = std::move(c);
    moved.Return();
    moved.Return();
    EXPECT_EQ(pool.Stats().leased, 2u);
  }
  s = pool.Stats();
  EXPECT_EQ(s.leased, 0u);
  EXPECT_EQ(s.idle, 2u);  // e never got storage: not kept
  pool.Trim();
  EXPECT_EQ(pool.Stats().idle, 0u);
  EXPECT_EQ(pool.Stats().idle_bytes, 0u);
}

// A small partition never sits on a large shape's buffer (its budget charge
// counts only its own n): an idle buffer above 2n is left for its own shape.
TEST(WitnessBufferPoolTest, NeverHandsOutMoreThanTwiceTheValuesAsked) {
  WitnessBufferPool pool({.idle_keep = 1h});
  {
    auto big = pool.Acquire(10'000);
    big.values().resize(10'000);
  }
  {
    auto small = pool.Acquire(100);  // the only idle buffer holds 100x: a new one
    EXPECT_EQ(small.values().capacity(), 0u);
    auto half = pool.Acquire(5'000);  // 10,000 <= 2 x 5,000: reused
    EXPECT_GE(half.values().capacity(), 10'000u);
  }
  EXPECT_EQ(pool.Stats().reuses, 1u);
}

TEST(WitnessBufferPoolTest, IdleBuffersAreFreedAfterIdleKeep) {
  constexpr auto kIdleKeep = 200ms;
  WitnessBufferPool pool({.idle_keep = kIdleKeep});
  std::chrono::steady_clock::time_point returned_after;
  {
    auto a = pool.Acquire(1000);
    a.values().resize(1000);
    returned_after = std::chrono::steady_clock::now();
  }
  // Kept idle: the reaper cannot free it before idle_keep has passed since it
  // came back, so a count read before that must show it. A thread descheduled
  // longer than that may see it freed already; then it was kept and freed once.
  const WitnessBufferPoolStats kept = pool.Stats();
  if (std::chrono::steady_clock::now() < returned_after + kIdleKeep) {
    EXPECT_EQ(kept.idle, 1u);
  } else {
    EXPECT_EQ(kept.idle + kept.freed_idle, 1u);
  }
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (pool.Stats().idle != 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(pool.Stats().idle, 0u);
  EXPECT_EQ(pool.Stats().freed_idle, 1u);
  // idle_keep 0: nothing is kept (a fresh buffer every time).
  WitnessBufferPool none({.idle_keep = 0ms});
  {
    auto a = none.Acquire(1000);
    a.values().resize(1000);
  }
  EXPECT_EQ(none.Stats().idle, 0u);
  EXPECT_EQ(none.Acquire(1000).values().capacity(), 0u);
}

// Concurrent syntheses: the pool never holds more buffers than were leased at
// once, and every lease gets a buffer no one else holds.
TEST(WitnessBufferPoolTest, ConcurrentLeasesAreBoundedByConcurrency) {
  WitnessBufferPool pool({.idle_keep = 1h});
  constexpr int kThreads = 4, kRounds = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&pool, t] {
      for (int r = 0; r < kRounds; ++r) {
        auto lease = pool.Acquire(256);
        lease.values().assign(256, Fr::FromUint64(uint64_t(t * kRounds + r)));
        std::this_thread::yield();
        for (const Fr& v : lease.values()) ASSERT_EQ(v, Fr::FromUint64(uint64_t(t * kRounds + r)));
      }
    });
  }
  for (auto& t : threads) t.join();
  const WitnessBufferPoolStats s = pool.Stats();
  EXPECT_EQ(s.leased, 0u);
  EXPECT_LE(s.idle, uint64_t(kThreads));
  EXPECT_LE(s.idle, s.leased_peak);
  EXPECT_EQ(s.acquires, uint64_t(kThreads * kRounds));
  EXPECT_GE(s.reuses, s.acquires - s.leased_peak);
}

}  // namespace
}  // namespace cuzk::snapdeals::witness
