#pragma once
// memory::Budget: one byte budget that every large allocation of the proving
// pipeline is charged to (synthesis working sets, pinned a/b/c buffers, SRS).
//
//   memory::Budget budget(400ull << 30);
//   memory::Reservation r = budget.Acquire(9ull << 30, /*priority=*/2);  // blocks in priority order
//   ...                                   // synthesis
//   r.Release(8ull << 30);                // a/b/c consumed by the GPU start
//   ...                                   // finalize
//   // ~Reservation releases the rest
//
// Grants are strict: the most urgent waiter (highest priority, then the
// oldest) is served first, and nobody behind it is served while it does not
// fit (no starvation of large requests by small ones). Before a waiter
// blocks, the evictors are asked to free idle memory (parameter sets, idle
// pinned buffers); they run without the budget's lock held. The check and the
// wait happen under one mutex and every release notifies under it, so a
// wake-up cannot be lost (cuzk's flaw: the check and the wait were apart).
// A request larger than the whole budget can never be granted and throws
// BudgetExceededError at once (the daemon maps it to RESOURCE_EXHAUSTED).
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace cuzk::memory {

// A request that can never fit: bytes > capacity.
class BudgetExceededError : public std::runtime_error {
 public:
  BudgetExceededError(uint64_t requested, uint64_t capacity);
  uint64_t requested() const { return requested_; }
  uint64_t capacity() const { return capacity_; }

 private:
  uint64_t requested_, capacity_;
};

class Budget;

// Move-only ownership of reserved bytes. Release(n) gives part back (the
// two-phase release of a partition); the destructor gives back the rest.
class Reservation {
 public:
  Reservation() = default;
  Reservation(Reservation&& other) noexcept;
  Reservation& operator=(Reservation&& other) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { Reset(); }

  uint64_t bytes() const { return bytes_; }
  bool empty() const { return bytes_ == 0; }
  // Gives back min(n, bytes()) bytes; returns how many were given back.
  uint64_t Release(uint64_t n);
  void Reset() { Release(bytes_); }
  // Moves min(n, bytes()) bytes into a new reservation of the same budget
  // (no change to the budget's total): e.g. the a/b/c part handed to a pinned buffer.
  Reservation Split(uint64_t n);
  // Takes over other's bytes (same budget, or either empty).
  void Merge(Reservation&& other);

 private:
  friend class Budget;
  Reservation(Budget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
  Budget* budget_ = nullptr;
  uint64_t bytes_ = 0;
};

struct BudgetStats {
  uint64_t capacity = 0;
  uint64_t reserved = 0;
  uint64_t peak = 0;
  uint64_t waiters = 0;
  uint64_t grants = 0;         // reservations handed out
  uint64_t waited_grants = 0;  // ... of which had to wait
  uint64_t evictor_calls = 0;
  uint64_t evicted_bytes = 0;  // as reported by the evictors
  uint64_t overcommits = 0;    // Charge calls that went past the capacity
};

class Budget {
 public:
  // Frees up to `needed` bytes of idle memory by releasing reservations it
  // owns; returns the bytes it freed (0 when it has nothing idle). Called
  // without the budget lock held, possibly from any acquiring thread.
  using Evictor = std::function<uint64_t(uint64_t needed)>;
  using EvictorId = uint64_t;

  explicit Budget(uint64_t capacity_bytes);
  Budget(const Budget&) = delete;
  Budget& operator=(const Budget&) = delete;
  // Every Reservation must be gone by now (checked: aborts otherwise, as a
  // dangling reservation would write into freed memory).
  ~Budget();

  // Blocks until granted. Throws BudgetExceededError when bytes > capacity.
  Reservation Acquire(uint64_t bytes, int priority = 0) ABSL_LOCKS_EXCLUDED(mu_);
  // As Acquire, but gives up (nullopt) when `stop` is requested.
  std::optional<Reservation> Acquire(uint64_t bytes, int priority, std::stop_token stop) ABSL_LOCKS_EXCLUDED(mu_);
  // Never blocks: granted only if nobody at least as urgent is waiting and
  // the bytes fit (after asking the evictors).
  std::optional<Reservation> TryAcquire(uint64_t bytes, int priority = 0) ABSL_LOCKS_EXCLUDED(mu_);
  std::optional<Reservation> AcquireFor(uint64_t bytes, int priority, std::chrono::nanoseconds timeout)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Charges memory that exists already or must exist (a parameter set being
  // loaded for a partition that holds its own reservation): granted at once,
  // past the capacity if need be (counted in Stats().overcommits); until
  // enough is released, every Acquire waits. Never blocks, so a load that the
  // waiting partitions depend on cannot deadlock with them. The evictors are
  // asked first to make room.
  Reservation Charge(uint64_t bytes) ABSL_LOCKS_EXCLUDED(mu_);

  EvictorId AddEvictor(Evictor evictor) ABSL_LOCKS_EXCLUDED(mu_);
  void RemoveEvictor(EvictorId id) ABSL_LOCKS_EXCLUDED(mu_);  // waits until no call of it is running

  uint64_t capacity() const { return capacity_; }
  uint64_t reserved() const ABSL_LOCKS_EXCLUDED(mu_);
  uint64_t available() const ABSL_LOCKS_EXCLUDED(mu_);
  uint64_t peak() const ABSL_LOCKS_EXCLUDED(mu_);
  BudgetStats Stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  friend class Reservation;
  struct Waiter {
    uint64_t bytes;
    int priority;
    uint64_t seq;
  };
  using WaiterList = std::list<Waiter>;

  std::optional<Reservation> AcquireImpl(uint64_t bytes, int priority, std::stop_token stop,
                                         std::optional<std::chrono::steady_clock::time_point> deadline, bool try_only)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until release_epoch_ moves past `seen`, `stop` is requested or the
  // deadline passes; true when the epoch moved.
  bool WaitForReleaseLocked(uint64_t seen, const std::stop_token& stop,
                            const std::optional<std::chrono::steady_clock::time_point>& deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReleaseBytes(uint64_t n) ABSL_LOCKS_EXCLUDED(mu_);
  // keeps waiters_ sorted: priority desc, seq asc
  WaiterList::iterator InsertWaiter(Waiter w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsHead(WaiterList::const_iterator it) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return it == waiters_.begin(); }
  Reservation GrantLocked(uint64_t bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Asks the evictors for `needed` bytes; mu_ is released during the calls.
  void RunEvictorsLocked(uint64_t needed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const uint64_t capacity_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;  // a release, a waiter leaving, an evictor run ending, a stop request
  uint64_t reserved_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t peak_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t release_epoch_ ABSL_GUARDED_BY(mu_) = 0;  // bumped by every release
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  WaiterList waiters_ ABSL_GUARDED_BY(mu_);
  BudgetStats counters_ ABSL_GUARDED_BY(mu_);  // grants/evictions
  std::list<std::pair<EvictorId, Evictor>> evictors_ ABSL_GUARDED_BY(mu_);
  EvictorId next_evictor_id_ ABSL_GUARDED_BY(mu_) = 1;
  int evictors_running_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cuzk::memory
