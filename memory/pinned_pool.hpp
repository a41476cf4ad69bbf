#pragma once
// memory::PinnedPool: reusable page-locked host buffers for a/b/c (or the
// witness), so the copy to the GPU runs at pinned line rate (cuzk copied from
// pageable memory at 1-4 GB/s and the GPU sat idle). Page-locking is costly
// (cudaHostAlloc of 8 GiB takes on the order of a second), so buffers are kept
// and reused: best fit (the smallest idle buffer that holds the request).
//
//   memory::PinnedPool pool(budget);
//   memory::PinnedBuffer buf = pool.Lease(abc_bytes, priority);  // charged to the budget
//   Synthesize(buf.data(), ...);  // ~PinnedBuffer gives it back to the pool (still charged)
//
// Every byte the pool holds, idle or leased, is charged to the Budget. The
// pool registers itself as an evictor: when an acquire does not fit, idle
// buffers are freed (largest first) until it does. Built with CUDA
// (CUZK_MEMORY_CUDA) buffers come from cudaHostAlloc(Portable) so every device
// sees them pinned; when that fails (no driver) or without CUDA they are plain
// aligned memory, and page_locked() says which.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "memory/budget.hpp"

namespace cuzk::memory {

struct PinnedPoolOptions {
  size_t alignment = 4096;                 // capacity is rounded up to this; also the address alignment
  uint64_t max_idle_bytes = ~uint64_t(0);  // buffers given back beyond this are freed at once
  bool try_page_lock = true;               // false: plain memory even with CUDA (tests, CPU-only daemons)
  // Page-locked bytes the pool holds at most (idle and leased). A buffer
  // that would pass it is plain aligned memory instead (page_locked() false,
  // copies at pageable speed) and is freed when given back rather than kept,
  // so the pool settles on page-locked buffers. Why a ceiling: cudaHostAlloc
  // of a 1.6 GB a/b/c buffer takes ~1 s and stalls the device's other CUDA
  // calls meanwhile; on the H200 a daemon whose synthesis ran 20 partitions
  // ahead of the GPU page-locked 20 new buffers and one ProveStart took 19.6 s
  // instead of 0.25 (docs/perf/gpu.md, daemon run 2).
  uint64_t max_page_locked_bytes = ~uint64_t(0);
};

struct PinnedPoolStats {
  uint64_t idle_bytes = 0, leased_bytes = 0;  // capacities
  uint64_t idle_buffers = 0, leased_buffers = 0;
  uint64_t allocations = 0, reuses = 0, frees = 0;
  uint64_t page_locked_allocations = 0;
  uint64_t page_locked_bytes = 0;         // capacities of the page-locked buffers held now (idle + leased)
  uint64_t over_ceiling_allocations = 0;  // plain buffers made because of max_page_locked_bytes
};

namespace internal {
struct PinnedPoolCore;
struct PinnedBlock {
  void* ptr = nullptr;
  size_t capacity = 0;
  bool page_locked = false;
  bool over_ceiling = false;  // plain only because of max_page_locked_bytes: freed when given back
  Reservation charge;         // exactly capacity bytes
};
}  // namespace internal

// A leased buffer; move-only. size() is what was asked for, capacity() what
// the block holds (>= size).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  ~PinnedBuffer() { Return(); }

  void* data() const { return block_.ptr; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(block_.ptr);
  }
  size_t size() const { return size_; }
  size_t capacity() const { return block_.capacity; }
  bool page_locked() const { return block_.page_locked; }
  explicit operator bool() const { return block_.ptr != nullptr; }

 private:
  friend class PinnedPool;
  PinnedBuffer(std::shared_ptr<internal::PinnedPoolCore> core, internal::PinnedBlock block, size_t size)
      : core_(std::move(core)), block_(std::move(block)), size_(size) {}
  void Return();
  std::shared_ptr<internal::PinnedPoolCore> core_;
  internal::PinnedBlock block_;
  size_t size_ = 0;
};

class PinnedPool {
 public:
  explicit PinnedPool(Budget& budget, PinnedPoolOptions options = {});
  // Frees the idle buffers; leased ones are freed when given back (they keep
  // the pool's state alive). The Budget must outlive every buffer.
  ~PinnedPool();
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  // Best-fit idle buffer, else a new one charged with budget.Acquire(priority)
  // (blocks; BudgetExceededError when it can never fit).
  PinnedBuffer Lease(size_t bytes, int priority = 0);
  // As Lease, charging a new buffer to `charge` (bytes already reserved, e.g.
  // the a/b/c part of a partition's reservation; topped up or trimmed to the
  // capacity). When an idle buffer is reused, it keeps its own charge and
  // `charge` is released.
  PinnedBuffer Lease(size_t bytes, Reservation&& charge, int priority = 0);
  // Only an idle buffer (best fit), never a new allocation.
  std::optional<PinnedBuffer> TakeIdle(size_t bytes);
  // Frees idle buffers (largest first) until `bytes` are freed or none is
  // left; returns the bytes freed. This is the evictor the budget calls.
  uint64_t Shrink(uint64_t bytes);

  PinnedPoolStats Stats() const;
  size_t RoundUp(size_t bytes) const;
  // Built with CUDA and a device answers: buffers will be page-locked.
  static bool PageLockingAvailable();

 private:
  std::shared_ptr<internal::PinnedPoolCore> core_;
  Budget::EvictorId evictor_id_ = 0;
};

}  // namespace cuzk::memory
