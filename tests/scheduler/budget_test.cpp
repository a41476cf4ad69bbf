// memory::Budget: strict priority grants, no lost wake-ups under concurrent
// stress, two-phase release, oversize requests fail at once, evictors asked
// before anyone blocks, timeouts and stop tokens leave no waiter behind.
#include "memory/budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "memory/meminfo.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::memory {
namespace {

using namespace std::chrono_literals;

void WaitForWaiters(const Budget& b, uint64_t n) {
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (b.Stats().waiters != n) {
    ASSERT_LT(std::chrono::steady_clock::now(), until) << "waiters never reached " << n;
    std::this_thread::sleep_for(1ms);
  }
}

TEST(Budget, GrantsInPriorityOrderThenArrival) {
  Budget budget(100);
  Reservation all = budget.Acquire(100, 0);
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread> threads;
  // (priority, tag): two of priority 2 check that equal priorities go oldest first.
  const std::vector<std::pair<int, int>> waiters = {{1, 10}, {3, 30}, {2, 20}, {4, 40}, {2, 21}};
  for (size_t i = 0; i < waiters.size(); ++i) {
    threads.emplace_back([&, i] {
      Reservation r = budget.Acquire(100, waiters[i].first);
      std::lock_guard lock(mu);
      order.push_back(waiters[i].second);
    });
    WaitForWaiters(budget, i + 1);  // so that arrival order is the list order
  }
  all.Reset();
  for (auto& t : threads) t.join();
  EXPECT_EQ(order, (std::vector<int>{40, 30, 20, 21, 10}));
  EXPECT_EQ(budget.reserved(), 0u);
}

TEST(Budget, HeadIsNotOvertakenBySmallerLowerPriorityRequests) {
  Budget budget(100);
  Reservation held = budget.Acquire(60, 0);
  std::atomic<bool> big_granted{false};
  std::thread big([&] {
    Reservation r = budget.Acquire(80, 3);
    big_granted = true;
  });
  WaitForWaiters(budget, 1);
  // 40 bytes are free, but the more urgent 80-byte waiter is ahead.
  EXPECT_FALSE(budget.TryAcquire(10, 1).has_value());
  EXPECT_FALSE(budget.AcquireFor(10, 1, 20ms).has_value());
  held.Reset();
  big.join();
  EXPECT_TRUE(big_granted);
}

TEST(Budget, PartialReleaseWakesWaiterAndRestReleasedOnDestruction) {
  Budget budget(100);
  auto r = std::make_unique<Reservation>(budget.Acquire(100, 0));
  std::promise<void> granted;
  std::thread t([&] {
    Reservation w = budget.Acquire(60, 0);
    EXPECT_EQ(budget.reserved(), 100u);  // 40 still held + 60
    granted.set_value();
  });
  WaitForWaiters(budget, 1);
  EXPECT_EQ(r->Release(60), 60u);  // the a/b/c part, at GPU start
  EXPECT_EQ(r->bytes(), 40u);
  ASSERT_EQ(granted.get_future().wait_for(5s), std::future_status::ready);
  t.join();
  EXPECT_EQ(budget.reserved(), 40u);
  EXPECT_EQ(r->Release(1000), 40u);  // never more than held
  r.reset();
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_EQ(budget.peak(), 100u);
}

TEST(Budget, OversizeRequestFailsAtOnceEvenWhenFull) {
  Budget budget(100);
  Reservation all = budget.Acquire(100);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(budget.Acquire(101), BudgetExceededError);
  EXPECT_THROW(budget.TryAcquire(101), BudgetExceededError);
  EXPECT_THROW(budget.AcquireFor(1000, 0, 10s), BudgetExceededError);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  try {
    budget.Acquire(500);
  } catch (const BudgetExceededError& e) {
    EXPECT_EQ(e.requested(), 500u);
    EXPECT_EQ(e.capacity(), 100u);
  }
  EXPECT_EQ(budget.Stats().waiters, 0u);
}

TEST(Budget, EvictorConsultedBeforeBlocking) {
  Budget budget(100);
  // An idle cache of 80 bytes, freed on demand.
  Reservation cache = budget.Acquire(80);
  std::vector<uint64_t> asked;
  budget.AddEvictor([&](uint64_t needed) {
    asked.push_back(needed);
    const uint64_t freed = cache.bytes();
    cache.Reset();
    return freed;
  });
  const auto t0 = std::chrono::steady_clock::now();
  Reservation r = budget.Acquire(50);  // would block forever without the evictor
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], 30u);  // just what was missing
  EXPECT_EQ(budget.Stats().evicted_bytes, 80u);
  EXPECT_EQ(budget.Stats().waited_grants, 0u);
}

TEST(Budget, ChargeNeverBlocksAsksEvictorsFirstAndHoldsBackLaterAcquires) {
  Budget budget(100);
  Reservation partitions = budget.Acquire(80);
  Reservation idle_cache = budget.Acquire(10);
  budget.AddEvictor([&](uint64_t) {
    const uint64_t freed = idle_cache.bytes();
    idle_cache.Reset();
    return freed;
  });
  // 50 more: the evictor frees its 10, the rest goes past the capacity.
  Reservation params = budget.Charge(50);
  EXPECT_EQ(params.bytes(), 50u);
  EXPECT_EQ(budget.reserved(), 130u);
  EXPECT_EQ(budget.available(), 0u);  // not an unsigned wrap-around
  EXPECT_EQ(budget.Stats().overcommits, 1u);
  EXPECT_EQ(budget.Stats().evicted_bytes, 10u);
  EXPECT_FALSE(budget.TryAcquire(1).has_value());  // over the capacity: nothing more is granted
  partitions.Reset();                              // 50 reserved now
  EXPECT_TRUE(budget.TryAcquire(50).has_value());
  // A charge that fits is an ordinary grant.
  Reservation small = budget.Charge(20);
  EXPECT_EQ(budget.Stats().overcommits, 1u);
  EXPECT_EQ(budget.reserved(), 70u);
}

TEST(Budget, EvictorWithNothingToFreeThenWaits) {
  Budget budget(100);
  Reservation held = budget.Acquire(100);
  std::atomic<int> calls{0};
  auto id = budget.AddEvictor([&](uint64_t) {
    ++calls;
    return uint64_t(0);
  });
  EXPECT_FALSE(budget.AcquireFor(10, 0, 30ms).has_value());
  EXPECT_EQ(calls.load(), 1);  // asked once, not spun on
  budget.RemoveEvictor(id);
  EXPECT_FALSE(budget.TryAcquire(10).has_value());
  EXPECT_EQ(calls.load(), 1);
}

TEST(Budget, TimeoutAndStopLeaveNoWaiter) {
  Budget budget(10);
  Reservation held = budget.Acquire(10);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(budget.AcquireFor(5, 0, 50ms).has_value());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 50ms);
  EXPECT_EQ(budget.Stats().waiters, 0u);

  std::stop_source stop;
  auto f = std::async(std::launch::async, [&] { return budget.Acquire(5, 0, stop.get_token()).has_value(); });
  WaitForWaiters(budget, 1);
  stop.request_stop();
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready);
  EXPECT_FALSE(f.get());
  EXPECT_EQ(budget.Stats().waiters, 0u);
  held.Reset();
  EXPECT_TRUE(budget.TryAcquire(10).has_value());
}

TEST(Budget, SplitAndMergeKeepTheTotal) {
  Budget budget(100);
  Reservation r = budget.Acquire(90);
  Reservation abc = r.Split(70);
  EXPECT_EQ(r.bytes(), 20u);
  EXPECT_EQ(abc.bytes(), 70u);
  EXPECT_EQ(budget.reserved(), 90u);
  r.Merge(std::move(abc));
  EXPECT_EQ(r.bytes(), 90u);
  EXPECT_TRUE(abc.empty());
  Reservation moved = std::move(r);
  EXPECT_EQ(budget.reserved(), 90u);
  moved.Reset();
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_TRUE(budget.TryAcquire(0).has_value());  // zero bytes: always, and nothing held
}

// Many threads acquiring, partially releasing and releasing at random: every
// acquire must eventually be granted (a lost wake-up hangs a thread; the
// watchdog turns that into a failure), the books must balance, and the peak
// must never pass the capacity.
TEST(Budget, NoLostWakeupUnderConcurrentStress) {
  const uint64_t seed = test::TestSeed();
  constexpr uint64_t kCapacity = 1000;
  constexpr int kThreads = 8, kRounds = 3000;
  Budget budget(kCapacity);
  std::atomic<uint64_t> grants{0};
  std::atomic<uint64_t> over_capacity{0};
  auto worker = [&](int t) {
    std::mt19937_64 rng(seed + uint64_t(t));
    for (int i = 0; i < kRounds; ++i) {
      const uint64_t bytes = 1 + rng() % kCapacity;
      const int priority = int(rng() % 4);
      std::optional<Reservation> r;
      switch (rng() % 3) {
        case 0: r = budget.Acquire(bytes, priority); break;
        case 1: r = budget.AcquireFor(bytes, priority, std::chrono::microseconds(rng() % 200)); break;
        default: r = budget.TryAcquire(bytes, priority); break;
      }
      if (!r) continue;
      ++grants;
      if (budget.reserved() > kCapacity) ++over_capacity;
      if (rng() % 2) r->Release(rng() % (bytes + 1));
      if (rng() % 8 == 0) std::this_thread::yield();
    }
  };
  auto done = std::async(std::launch::async, [&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
    for (auto& th : threads) th.join();
  });
  ASSERT_EQ(done.wait_for(30s), std::future_status::ready) << "an acquire never woke up (seed " << seed << ")";
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_LE(budget.peak(), kCapacity);
  EXPECT_EQ(over_capacity.load(), 0u);
  EXPECT_EQ(budget.Stats().waiters, 0u);
  EXPECT_GT(grants.load(), uint64_t(kThreads) * kRounds / 4);
}

TEST(MemInfo, ParsesMemTotalAndRejectsGarbage) {
  EXPECT_EQ(ParseMemTotal("MemFree:  10 kB\nMemTotal:     263842148 kB\n"), uint64_t(263842148) << 10);
  EXPECT_EQ(ParseMemTotal("MemTotal: 4096\n"), 4096u);
  EXPECT_FALSE(ParseMemTotal("MemFree: 10 kB\n").has_value());
  EXPECT_FALSE(ParseMemTotal("MemTotal: lots kB\n").has_value());
  EXPECT_FALSE(ParseMemTotal("MemTotal: 12 MB\n").has_value());
  EXPECT_FALSE(ParseMemTotal("MemTotal: 99999999999999999999999 kB\n").has_value());
}

TEST(MemInfo, AutoBudgetIsMemTotalMinusMargin) {
  const std::string path = testing::TempDir() + "/meminfo_test";
  {
    std::ofstream f(path);
    f << "MemTotal:       16777216 kB\nMemFree: 1 kB\n";
  }
  EXPECT_EQ(AutoBudgetBytes(uint64_t(5) << 30, path), (uint64_t(16) << 30) - (uint64_t(5) << 30));
  EXPECT_THROW(AutoBudgetBytes(uint64_t(16) << 30, path), std::runtime_error);
  EXPECT_THROW(AutoBudgetBytes(0, path + ".missing"), std::runtime_error);
  std::remove(path.c_str());
  EXPECT_GT(AutoBudgetBytes(0), 0u);  // this machine's /proc/meminfo
}

}  // namespace
}  // namespace cuzk::memory
