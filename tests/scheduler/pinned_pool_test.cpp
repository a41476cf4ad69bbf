// memory::PinnedPool: every byte charged to the budget, best-fit reuse,
// shrink as the budget's evictor, adoption of a partition's a/b/c charge.
#include "memory/pinned_pool.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace cuzk::memory {
namespace {

constexpr size_t kMiB = size_t(1) << 20;

TEST(PinnedPool, LeaseChargesBudgetAndReturnKeepsBufferIdle) {
  Budget budget(64 * kMiB);
  PinnedPool pool(budget);
  {
    PinnedBuffer b = pool.Lease(3 * kMiB + 1);
    ASSERT_TRUE(b);
    EXPECT_EQ(b.size(), 3 * kMiB + 1);
    EXPECT_EQ(b.capacity(), pool.RoundUp(3 * kMiB + 1));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 4096, 0u);
    std::memset(b.data(), 0xab, b.size());  // writable, all of it
    EXPECT_EQ(budget.reserved(), b.capacity());
    EXPECT_EQ(pool.Stats().leased_buffers, 1u);
  }
  // Given back: idle, still charged (it is still allocated).
  EXPECT_EQ(pool.Stats().idle_buffers, 1u);
  EXPECT_EQ(budget.reserved(), pool.Stats().idle_bytes);
  PinnedBuffer again = pool.Lease(2 * kMiB);
  EXPECT_EQ(pool.Stats().reuses, 1u);
  EXPECT_EQ(pool.Stats().allocations, 1u);
}

TEST(PinnedPool, PageLockedExactlyWhenCudaCanDoIt) {
  Budget budget(64 * kMiB);
  PinnedPool pool(budget);
  PinnedBuffer b = pool.Lease(kMiB);
  EXPECT_EQ(b.page_locked(), PinnedPool::PageLockingAvailable());
  EXPECT_EQ(pool.Stats().page_locked_allocations, PinnedPool::PageLockingAvailable() ? 1u : 0u);
  PinnedPoolOptions plain;
  plain.try_page_lock = false;
  PinnedPool plain_pool(budget, plain);
  EXPECT_FALSE(plain_pool.Lease(kMiB).page_locked());
}

TEST(PinnedPool, PageLockedCeilingOnlyConcernsPageLockedBuffers) {
  // Where nothing can be page-locked (no CUDA device: CI) the ceiling changes
  // nothing: plain buffers are kept and reused as usual. With a device,
  // pinned_copy_gpu_test checks the ceiling itself.
  Budget budget(64 * kMiB);
  PinnedPool pool(budget, {.max_page_locked_bytes = 0});
  { PinnedBuffer b = pool.Lease(kMiB); }
  const PinnedPoolStats s = pool.Stats();
  if (PinnedPool::PageLockingAvailable()) {
    EXPECT_EQ(s.over_ceiling_allocations, 1u);
    EXPECT_EQ(s.idle_buffers, 0u);  // an over-ceiling buffer is not kept
  } else {
    EXPECT_EQ(s.over_ceiling_allocations, 0u);
    EXPECT_EQ(s.idle_buffers, 1u);
    EXPECT_EQ(s.page_locked_bytes, 0u);
  }
}

TEST(PinnedPool, BestFitPicksTheSmallestBufferThatHolds) {
  Budget budget(64 * kMiB);
  PinnedPool pool(budget);
  void* small_ptr;
  void* big_ptr;
  {
    PinnedBuffer small = pool.Lease(1 * kMiB);
    PinnedBuffer big = pool.Lease(4 * kMiB);
    small_ptr = small.data();
    big_ptr = big.data();
  }
  PinnedBuffer a = pool.Lease(kMiB / 2);
  EXPECT_EQ(a.data(), small_ptr);
  PinnedBuffer b = pool.Lease(kMiB + 1);  // the 1 MiB one is taken; 4 MiB holds it
  EXPECT_EQ(b.data(), big_ptr);
  PinnedBuffer c = pool.Lease(kMiB);  // nothing idle left: new
  EXPECT_EQ(pool.Stats().allocations, 3u);
  EXPECT_FALSE(pool.TakeIdle(1).has_value());
}

TEST(PinnedPool, ShrinksUnderBudgetPressure) {
  Budget budget(10 * kMiB);
  PinnedPool pool(budget);
  { PinnedBuffer b = pool.Lease(8 * kMiB); }
  EXPECT_EQ(budget.reserved(), 8 * kMiB);
  // 5 MiB do not fit next to the idle 8 MiB: the pool is asked, frees it.
  Reservation r = budget.Acquire(5 * kMiB);
  EXPECT_EQ(pool.Stats().idle_buffers, 0u);
  EXPECT_EQ(pool.Stats().frees, 1u);
  EXPECT_EQ(budget.reserved(), 5 * kMiB);
  // A leased buffer is never freed by pressure.
  PinnedBuffer held = pool.Lease(4 * kMiB);
  EXPECT_FALSE(budget.TryAcquire(2 * kMiB).has_value());
  EXPECT_TRUE(held);
}

TEST(PinnedPool, AdoptsAPartitionsCharge) {
  Budget budget(64 * kMiB);
  PinnedPool pool(budget);
  Reservation partition = budget.Acquire(9 * kMiB);
  {
    PinnedBuffer abc = pool.Lease(8 * kMiB, partition.Split(8 * kMiB));
    EXPECT_EQ(budget.reserved(), 9 * kMiB);  // no double charge
    EXPECT_EQ(partition.bytes(), 1 * kMiB);
  }
  EXPECT_EQ(budget.reserved(), 9 * kMiB);  // 1 MiB partition + 8 MiB idle buffer
  Reservation next = budget.Acquire(9 * kMiB);
  {
    // Reuse: the idle buffer keeps its own charge, the new one is released.
    PinnedBuffer abc = pool.Lease(8 * kMiB, next.Split(8 * kMiB));
    EXPECT_EQ(pool.Stats().reuses, 1u);
    EXPECT_EQ(budget.reserved(), 1 * kMiB + 8 * kMiB + 1 * kMiB);
  }
}

TEST(PinnedPool, MaxIdleBytesFreesTheSurplus) {
  Budget budget(64 * kMiB);
  PinnedPoolOptions o;
  o.max_idle_bytes = 2 * kMiB;
  PinnedPool pool(budget, o);
  {
    PinnedBuffer a = pool.Lease(2 * kMiB);
    PinnedBuffer b = pool.Lease(2 * kMiB);
  }
  EXPECT_EQ(pool.Stats().idle_buffers, 1u);
  EXPECT_EQ(budget.reserved(), 2 * kMiB);
}

TEST(PinnedPool, BufferMayOutliveThePool) {
  Budget budget(64 * kMiB);
  PinnedBuffer b;
  {
    PinnedPool pool(budget);
    b = pool.Lease(kMiB);
  }
  EXPECT_EQ(budget.reserved(), kMiB);  // freed when given back, not before
  b = PinnedBuffer();
  EXPECT_EQ(budget.reserved(), 0u);
}

}  // namespace
}  // namespace cuzk::memory
