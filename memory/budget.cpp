#include "memory/budget.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cuzk::memory {

BudgetExceededError::BudgetExceededError(uint64_t requested, uint64_t capacity)
    : std::runtime_error("memory request of " + std::to_string(requested) + " bytes exceeds the whole budget of " +
                         std::to_string(capacity) + " bytes"),
      requested_(requested),
      capacity_(capacity) {}

Reservation::Reservation(Reservation&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) {
  other.budget_ = nullptr;
  other.bytes_ = 0;
}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    Reset();
    budget_ = other.budget_;
    bytes_ = other.bytes_;
    other.budget_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

uint64_t Reservation::Release(uint64_t n) {
  n = std::min(n, bytes_);
  if (n == 0) return 0;
  bytes_ -= n;
  budget_->ReleaseBytes(n);
  return n;
}

Reservation Reservation::Split(uint64_t n) {
  n = std::min(n, bytes_);
  bytes_ -= n;
  return Reservation(n ? budget_ : nullptr, n);
}

void Reservation::Merge(Reservation&& other) {
  if (other.bytes_ == 0) return;
  if (bytes_ != 0 && budget_ != other.budget_) throw std::invalid_argument("Reservation::Merge across budgets");
  budget_ = other.budget_;
  bytes_ += other.bytes_;
  other.budget_ = nullptr;
  other.bytes_ = 0;
}

namespace {

using SteadyClock = std::chrono::steady_clock;

absl::Time AbslDeadline(SteadyClock::time_point t) { return absl::Now() + absl::FromChrono(t - SteadyClock::now()); }

}  // namespace

Budget::Budget(uint64_t capacity_bytes) : capacity_(capacity_bytes) { counters_.capacity = capacity_bytes; }

Budget::~Budget() {
  absl::MutexLock lock(&mu_);
  if (reserved_ != 0 || !waiters_.empty()) {
    std::fprintf(stderr, "memory::Budget destroyed with %llu bytes still reserved and %zu waiters\n",
                 (unsigned long long)reserved_, waiters_.size());
    std::abort();
  }
}

Reservation Budget::Acquire(uint64_t bytes, int priority) {
  return *AcquireImpl(bytes, priority, {}, std::nullopt, false);
}

std::optional<Reservation> Budget::Acquire(uint64_t bytes, int priority, std::stop_token stop) {
  return AcquireImpl(bytes, priority, std::move(stop), std::nullopt, false);
}

std::optional<Reservation> Budget::TryAcquire(uint64_t bytes, int priority) {
  return AcquireImpl(bytes, priority, {}, std::nullopt, true);
}

std::optional<Reservation> Budget::AcquireFor(uint64_t bytes, int priority, std::chrono::nanoseconds timeout) {
  return AcquireImpl(bytes, priority, {}, SteadyClock::now() + timeout, false);
}

Budget::WaiterList::iterator Budget::InsertWaiter(Waiter w) {
  auto pos = std::find_if(waiters_.begin(), waiters_.end(), [&](const Waiter& o) { return o.priority < w.priority; });
  return waiters_.insert(pos, w);
}

Reservation Budget::GrantLocked(uint64_t bytes) {
  reserved_ += bytes;
  peak_ = std::max(peak_, reserved_);
  ++counters_.grants;
  return Reservation(this, bytes);
}

void Budget::RunEvictorsLocked(uint64_t needed) {
  std::vector<Evictor> evictors;
  for (auto& [id, e] : evictors_) evictors.push_back(e);
  ++evictors_running_;
  mu_.Unlock();
  uint64_t freed = 0;
  for (auto& e : evictors) {
    if (freed >= needed) break;
    try {
      freed += e(needed - freed);
    } catch (...) {
      // An evictor that fails frees nothing; the acquire then waits as usual.
    }
  }
  mu_.Lock();
  --evictors_running_;
  ++counters_.evictor_calls;
  counters_.evicted_bytes += freed;
  cv_.SignalAll();  // RemoveEvictor may be waiting for evictors_running_ == 0
}

bool Budget::WaitForReleaseLocked(uint64_t seen, const std::stop_token& stop,
                                  const std::optional<SteadyClock::time_point>& deadline) {
  while (release_epoch_ == seen && !stop.stop_requested()) {
    if (!deadline) {
      cv_.Wait(&mu_);
    } else if (SteadyClock::now() >= *deadline) {
      break;
    } else {
      // The steady clock decides whether the deadline passed; absl's clock only bounds the wait.
      cv_.WaitWithDeadline(&mu_, AbslDeadline(*deadline));
    }
  }
  return release_epoch_ != seen;
}

std::optional<Reservation> Budget::AcquireImpl(uint64_t bytes, int priority, std::stop_token stop,
                                               std::optional<SteadyClock::time_point> deadline, bool try_only) {
  if (bytes > capacity_) throw BudgetExceededError(bytes, capacity_);
  // A stop request wakes the wait. The callback takes mu_, so it cannot fall
  // between a waiter's look at the token and its wait; it is registered
  // before mu_ is taken (it runs at once if stop was already requested) and
  // unregistered after mu_ is released (declared first, destroyed last).
  auto wake = [this] {
    absl::MutexLock lock(&mu_);
    cv_.SignalAll();
  };
  std::stop_callback<decltype(wake)> on_stop(stop, wake);
  absl::MutexLock lock(&mu_);
  if (bytes == 0) return Reservation();
  auto it = InsertWaiter({bytes, priority, next_seq_++});
  uint64_t evicted_at_epoch = ~uint64_t(0);
  bool waited = false;
  for (;;) {
    if (IsHead(it)) {
      if (reserved_ + bytes <= capacity_) {
        waiters_.erase(it);
        Reservation r = GrantLocked(bytes);
        if (waited) ++counters_.waited_grants;
        // The next waiter may fit too (a large release can serve several).
        cv_.SignalAll();
        return r;
      }
      // A stopped acquirer evicts nothing: the dispatcher that was stopped
      // because a pinned buffer came back takes that buffer next, and an
      // eviction now would free it (scheduler/pipeline.cpp).
      if (!evictors_.empty() && evicted_at_epoch != release_epoch_ && !stop.stop_requested()) {
        evicted_at_epoch = release_epoch_;
        RunEvictorsLocked(reserved_ + bytes - capacity_);
        continue;
      }
    }
    bool give_up = try_only || stop.stop_requested();
    if (!give_up) {
      waited = true;
      const bool changed = WaitForReleaseLocked(release_epoch_, stop, deadline);
      if (!changed && !stop.stop_requested()) {
        // The deadline passed. Last look: a release may have landed exactly at it.
        give_up = !(IsHead(it) && reserved_ + bytes <= capacity_);
      } else if (!changed) {
        give_up = true;  // stopped
      }
    }
    if (give_up) {
      waiters_.erase(it);
      ++release_epoch_;  // the head may have changed: whoever is behind must look again
      cv_.SignalAll();
      return std::nullopt;
    }
  }
}

void Budget::ReleaseBytes(uint64_t n) {
  absl::MutexLock lock(&mu_);
  reserved_ -= n;
  ++release_epoch_;
  cv_.SignalAll();
}

Budget::EvictorId Budget::AddEvictor(Evictor evictor) {
  absl::MutexLock lock(&mu_);
  const EvictorId id = next_evictor_id_++;
  evictors_.emplace_back(id, std::move(evictor));
  ++release_epoch_;  // waiters that gave up on eviction may try the new one
  cv_.SignalAll();
  return id;
}

void Budget::RemoveEvictor(EvictorId id) {
  absl::MutexLock lock(&mu_);
  evictors_.remove_if([&](auto& p) { return p.first == id; });
  while (evictors_running_ != 0) cv_.Wait(&mu_);
}

uint64_t Budget::reserved() const {
  absl::MutexLock lock(&mu_);
  return reserved_;
}

uint64_t Budget::available() const {
  absl::MutexLock lock(&mu_);
  return reserved_ >= capacity_ ? 0 : capacity_ - reserved_;  // past the capacity after a Charge
}

Reservation Budget::Charge(uint64_t bytes) {
  absl::MutexLock lock(&mu_);
  if (reserved_ + bytes > capacity_) RunEvictorsLocked(reserved_ + bytes - capacity_);
  if (reserved_ + bytes > capacity_) ++counters_.overcommits;
  return GrantLocked(bytes);
}

uint64_t Budget::peak() const {
  absl::MutexLock lock(&mu_);
  return peak_;
}

BudgetStats Budget::Stats() const {
  absl::MutexLock lock(&mu_);
  BudgetStats s = counters_;
  s.reserved = reserved_;
  s.peak = peak_;
  s.waiters = waiters_.size();
  return s;
}

}  // namespace cuzk::memory
