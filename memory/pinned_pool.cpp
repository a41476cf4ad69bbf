#include "memory/pinned_pool.hpp"

#include <cstdlib>
#include <map>
#include <new>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#ifdef CUZK_MEMORY_CUDA
#include <cuda_runtime_api.h>
#endif

namespace cuzk::memory {
namespace internal {

struct PinnedPoolCore {
  PinnedPoolCore(Budget& b, PinnedPoolOptions o) : budget(b), options(o) {}
  Budget& budget;
  const PinnedPoolOptions options;
  mutable absl::Mutex mu;
  std::multimap<size_t, PinnedBlock> idle ABSL_GUARDED_BY(mu);  // by capacity: lower_bound is the best fit
  PinnedPoolStats stats ABSL_GUARDED_BY(mu);
  bool closed ABSL_GUARDED_BY(mu) = false;  // the pool object is gone: returned buffers are freed
};

namespace {

// Frees outside every lock; the caller has already taken a page-locked
// block's capacity off stats.page_locked_bytes (ForgetLocked).
void FreeBlock(PinnedBlock& b) {
  if (!b.ptr) return;
#ifdef CUZK_MEMORY_CUDA
  if (b.page_locked) {
    cudaFreeHost(b.ptr);
  } else {
    std::free(b.ptr);
  }
#else
  std::free(b.ptr);
#endif
  b.ptr = nullptr;
  b.charge.Reset();  // the budget sees the bytes only after the memory is gone
}

// Allocates outside every lock: page-locking costs far more than the lock.
// The page-locked ceiling is claimed under the lock first (and given back
// when page-locking fails), so concurrent leases cannot pass it together.
PinnedBlock AllocateBlock(PinnedPoolCore& core, size_t capacity, Reservation charge) {
  const PinnedPoolOptions& o = core.options;
  PinnedBlock b;
  b.capacity = capacity;
#ifdef CUZK_MEMORY_CUDA
  if (o.try_page_lock) {
    bool claimed;
    {
      absl::MutexLock lock(&core.mu);
      claimed = core.stats.page_locked_bytes + capacity <= o.max_page_locked_bytes;
      if (claimed) core.stats.page_locked_bytes += capacity;
    }
    void* p = nullptr;
    if (claimed && cudaHostAlloc(&p, capacity, cudaHostAllocPortable) == cudaSuccess && p) {
      b.ptr = p;
      b.page_locked = true;
    } else if (claimed) {
      cudaGetLastError();  // clear the sticky error; fall back to pageable memory
      absl::MutexLock lock(&core.mu);
      core.stats.page_locked_bytes -= capacity;
    } else {
      // Past the ceiling; only worth noting (and not keeping the buffer)
      // where page-locking works at all.
      b.over_ceiling = PinnedPool::PageLockingAvailable();
    }
  }
#endif
  if (!b.ptr) {
    b.ptr = std::aligned_alloc(o.alignment, capacity);
    if (!b.ptr) throw std::bad_alloc();
  }
  b.charge = std::move(charge);
  return b;
}

// A block leaves the pool for good (about to be freed).
void ForgetLocked(PinnedPoolCore& core, const PinnedBlock& b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(core.mu) {
  ++core.stats.frees;
  if (b.page_locked) core.stats.page_locked_bytes -= b.capacity;
}

std::optional<PinnedBlock> TakeBestFitLocked(PinnedPoolCore& core, size_t bytes)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(core.mu) {
  auto it = core.idle.lower_bound(bytes);
  if (it == core.idle.end()) return std::nullopt;
  PinnedBlock b = std::move(it->second);
  core.idle.erase(it);
  core.stats.idle_bytes -= b.capacity;
  --core.stats.idle_buffers;
  ++core.stats.reuses;
  core.stats.leased_bytes += b.capacity;
  ++core.stats.leased_buffers;
  return b;
}

}  // namespace
}  // namespace internal

using internal::PinnedBlock;
using internal::PinnedPoolCore;

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : core_(std::move(other.core_)), block_(std::move(other.block_)), size_(other.size_) {
  other.block_.ptr = nullptr;
  other.block_.capacity = 0;
  other.size_ = 0;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    Return();
    core_ = std::move(other.core_);
    block_ = std::move(other.block_);
    size_ = other.size_;
    other.block_.ptr = nullptr;
    other.block_.capacity = 0;
    other.size_ = 0;
  }
  return *this;
}

void PinnedBuffer::Return() {
  if (!block_.ptr) return;
  PinnedBlock b = std::move(block_);
  block_.ptr = nullptr;
  block_.capacity = 0;
  auto core = std::move(core_);
  bool keep;
  {
    absl::MutexLock lock(&core->mu);
    core->stats.leased_bytes -= b.capacity;
    --core->stats.leased_buffers;
    keep = !core->closed && !b.over_ceiling && core->stats.idle_bytes + b.capacity <= core->options.max_idle_bytes;
    if (keep) {
      core->stats.idle_bytes += b.capacity;
      ++core->stats.idle_buffers;
      core->idle.emplace(b.capacity, std::move(b));
    } else {
      internal::ForgetLocked(*core, b);
    }
  }
  if (!keep) internal::FreeBlock(b);
}

PinnedPool::PinnedPool(Budget& budget, PinnedPoolOptions options)
    : core_(std::make_shared<PinnedPoolCore>(budget, options)) {
  if (options.alignment == 0 || (options.alignment & (options.alignment - 1)) != 0)
    throw std::invalid_argument("PinnedPool alignment must be a power of two");
  evictor_id_ = budget.AddEvictor([this](uint64_t needed) { return Shrink(needed); });
}

PinnedPool::~PinnedPool() {
  core_->budget.RemoveEvictor(evictor_id_);
  std::vector<PinnedBlock> doomed;
  {
    absl::MutexLock lock(&core_->mu);
    core_->closed = true;
    for (auto& [cap, b] : core_->idle) internal::ForgetLocked(*core_, b), doomed.push_back(std::move(b));
    core_->idle.clear();
    core_->stats.idle_bytes = 0;
    core_->stats.idle_buffers = 0;
  }
  for (auto& b : doomed) internal::FreeBlock(b);
}

size_t PinnedPool::RoundUp(size_t bytes) const {
  const size_t a = core_->options.alignment;
  return (bytes + a - 1) / a * a;
}

std::optional<PinnedBuffer> PinnedPool::TakeIdle(size_t bytes) {
  absl::MutexLock lock(&core_->mu);
  auto b = internal::TakeBestFitLocked(*core_, bytes);
  if (!b) return std::nullopt;
  return PinnedBuffer(core_, std::move(*b), bytes);
}

PinnedBuffer PinnedPool::Lease(size_t bytes, int priority) { return Lease(bytes, Reservation(), priority); }

PinnedBuffer PinnedPool::Lease(size_t bytes, Reservation&& charge, int priority) {
  if (bytes == 0) throw std::invalid_argument("PinnedPool::Lease of 0 bytes");
  if (auto idle = TakeIdle(bytes)) {
    charge.Reset();  // the idle buffer is already charged
    return std::move(*idle);
  }
  const size_t capacity = RoundUp(bytes);
  Reservation c = std::move(charge);
  if (c.bytes() > capacity) c.Release(c.bytes() - capacity);
  if (c.bytes() < capacity) c.Merge(core_->budget.Acquire(capacity - c.bytes(), priority));
  PinnedBlock b = internal::AllocateBlock(*core_, capacity, std::move(c));
  {
    absl::MutexLock lock(&core_->mu);
    ++core_->stats.allocations;
    if (b.page_locked) ++core_->stats.page_locked_allocations;
    if (b.over_ceiling) ++core_->stats.over_ceiling_allocations;
    core_->stats.leased_bytes += b.capacity;
    ++core_->stats.leased_buffers;
  }
  return PinnedBuffer(core_, std::move(b), bytes);
}

uint64_t PinnedPool::Shrink(uint64_t bytes) {
  std::vector<PinnedBlock> doomed;
  uint64_t freed = 0;
  {
    absl::MutexLock lock(&core_->mu);
    while (freed < bytes && !core_->idle.empty()) {
      auto it = std::prev(core_->idle.end());  // largest first: fewest frees for the bytes
      freed += it->second.capacity;
      core_->stats.idle_bytes -= it->second.capacity;
      --core_->stats.idle_buffers;
      internal::ForgetLocked(*core_, it->second);
      doomed.push_back(std::move(it->second));
      core_->idle.erase(it);
    }
  }
  for (auto& b : doomed) internal::FreeBlock(b);
  return freed;
}

bool PinnedPool::PageLockingAvailable() {
#ifdef CUZK_MEMORY_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
#else
  return false;
#endif
}

PinnedPoolStats PinnedPool::Stats() const {
  absl::MutexLock lock(&core_->mu);
  return core_->stats;
}

}  // namespace cuzk::memory
