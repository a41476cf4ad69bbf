// GPU check (label gpu; skipped without a device): a PinnedPool buffer is
// page-locked and host-to-device copies from it run at pinned line rate,
// well above the same copy from pageable memory (cuzk's 1-4 GB/s a/b/c
// copies were the GPU's idle time). Prints both rates.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "memory/pinned_pool.hpp"

namespace cuzk::memory {
namespace {

double CopyGBps(const void* src, void* dst, size_t bytes) {
  cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);  // warm-up (and first-touch of pageable pages)
  cudaDeviceSynchronize();
  const int reps = 5;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
  cudaDeviceSynchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return double(bytes) * reps / s / 1e9;
}

TEST(PinnedCopyGpu, PinnedBuffersCopyAtLineRate) {
  if (!PinnedPool::PageLockingAvailable()) GTEST_SKIP() << "no CUDA device";
  constexpr size_t kBytes = size_t(1) << 30;
  Budget budget(4 * kBytes);
  PinnedPool pool(budget);
  PinnedBuffer pinned = pool.Lease(kBytes);
  ASSERT_TRUE(pinned.page_locked());
  std::memset(pinned.data(), 1, kBytes);
  std::vector<uint8_t> pageable(kBytes, 1);
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  const double pinned_rate = CopyGBps(pinned.data(), dev, kBytes);
  const double pageable_rate = CopyGBps(pageable.data(), dev, kBytes);
  cudaFree(dev);
  std::printf("H2D 1 GiB: pinned pool buffer %.1f GB/s, pageable %.1f GB/s\n", pinned_rate, pageable_rate);
  EXPECT_GT(pinned_rate, 20.0);
  EXPECT_GT(pinned_rate, 1.3 * pageable_rate);
}

TEST(PinnedCopyGpu, PageLockedCeilingGivesPlainBuffersThatAreNotKept) {
  if (!PinnedPool::PageLockingAvailable()) GTEST_SKIP() << "no CUDA device";
  constexpr size_t kBytes = size_t(64) << 20;
  Budget budget(16 * kBytes);
  PinnedPool pool(budget, {.max_page_locked_bytes = 2 * kBytes});
  PinnedBuffer a = pool.Lease(kBytes), b = pool.Lease(kBytes), c = pool.Lease(kBytes);
  EXPECT_TRUE(a.page_locked());
  EXPECT_TRUE(b.page_locked());
  EXPECT_FALSE(c.page_locked()) << "past max_page_locked_bytes";
  EXPECT_EQ(pool.Stats().page_locked_bytes, 2 * kBytes);
  EXPECT_EQ(pool.Stats().over_ceiling_allocations, 1u);
  EXPECT_EQ(budget.reserved(), 3 * kBytes);  // the plain one is charged too
  c = PinnedBuffer();                        // freed, not kept
  EXPECT_EQ(pool.Stats().idle_buffers, 0u);
  EXPECT_EQ(pool.Stats().frees, 1u);
  EXPECT_EQ(budget.reserved(), 2 * kBytes);
  a = PinnedBuffer();  // kept, and reused page-locked
  EXPECT_EQ(pool.Stats().idle_buffers, 1u);
  PinnedBuffer d = pool.Lease(kBytes);
  EXPECT_TRUE(d.page_locked());
  EXPECT_EQ(pool.Stats().reuses, 1u);
  b = PinnedBuffer();
  d = PinnedBuffer();
  EXPECT_EQ(pool.Shrink(~uint64_t(0)), 2 * kBytes);
  EXPECT_EQ(pool.Stats().page_locked_bytes, 0u);
  EXPECT_EQ(budget.reserved(), 0u);
}

}  // namespace
}  // namespace cuzk::memory
