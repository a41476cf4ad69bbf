#include "engine/circuits/snapdeals/witness/witness_buffer_pool.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace cuzk::snapdeals::witness {

WitnessBufferPool::Lease::Lease(Lease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), values_(std::move(other.values_)) {}

WitnessBufferPool::Lease& WitnessBufferPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Return();
    pool_ = std::exchange(other.pool_, nullptr);
    values_ = std::move(other.values_);
  }
  return *this;
}

void WitnessBufferPool::Lease::Return() {
  if (!pool_) return;
  std::exchange(pool_, nullptr)->Give(std::move(values_));
  values_ = {};
}

WitnessBufferPool::WitnessBufferPool(const WitnessBufferPoolOptions& options)
    : options_(options), reaper_([this](std::stop_token stop) { Reap(stop); }) {}

WitnessBufferPool::~WitnessBufferPool() {
  reaper_.request_stop();
  if (reaper_.joinable()) reaper_.join();
  std::lock_guard lock(mu_);
  if (stats_.leased != 0) {
    std::fprintf(stderr, "WitnessBufferPool destroyed with %llu buffer(s) still leased\n",
                 (unsigned long long)stats_.leased);
    std::abort();  // a lease would give its buffer back into freed memory
  }
}

WitnessBufferPool::Lease WitnessBufferPool::Acquire(size_t n) {
  Lease lease;
  lease.pool_ = this;
  std::lock_guard lock(mu_);
  ++stats_.acquires;
  ++stats_.leased;
  stats_.leased_peak = std::max(stats_.leased_peak, stats_.leased);
  if (idle_.empty()) return lease;
  // The smallest idle buffer holding n values but not more than twice n (a
  // larger one would sit under a small partition whose budget charge counts
  // only n, while a large partition beside it allocates its own); else the
  // largest smaller one (the caller grows it, freeing the old storage); else
  // none: a new buffer.
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    const size_t c = it->values.capacity();
    if (c > 2 * n) continue;
    if (best == idle_.end()) {
      best = it;
      continue;
    }
    const size_t b = best->values.capacity();
    const bool fits = c >= n, best_fits = b >= n;
    if (fits ? (!best_fits || c < b) : (!best_fits && c > b)) best = it;
  }
  if (best == idle_.end()) return lease;
  if (best->values.capacity() >= n) ++stats_.reuses;
  lease.values_ = std::move(best->values);
  idle_.erase(best);
  return lease;
}

void WitnessBufferPool::Give(std::vector<ff::Fr>&& values) {
  std::vector<ff::Fr> freed;  // freed outside the lock (munmap of GBs takes ms)
  {
    std::lock_guard lock(mu_);
    --stats_.leased;
    if (values.capacity() == 0) return;
    if (options_.idle_keep.count() <= 0) {
      ++stats_.freed_idle;
      freed = std::move(values);
    } else {
      idle_.push_back({std::move(values), std::chrono::steady_clock::now()});
    }
  }
  cv_.notify_all();
}

WitnessBufferPoolStats WitnessBufferPool::Stats() const {
  std::lock_guard lock(mu_);
  WitnessBufferPoolStats s = stats_;
  s.idle = idle_.size();
  for (const Idle& i : idle_) s.idle_bytes += i.values.capacity() * sizeof(ff::Fr);
  return s;
}

void WitnessBufferPool::Trim() {
  std::vector<Idle> freed;
  {
    std::lock_guard lock(mu_);
    stats_.freed_idle += idle_.size();
    freed.swap(idle_);
  }
}

// Sleeps until the oldest idle buffer's time is up (or one comes back, or
// the pool goes), then frees what has been idle for idle_keep.
void WitnessBufferPool::Reap(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    if (idle_.empty()) {
      cv_.wait(lock, stop, [&] { return !idle_.empty(); });
      continue;
    }
    auto oldest = idle_.front().since;
    for (const Idle& i : idle_) oldest = std::min(oldest, i.since);
    const auto deadline = oldest + options_.idle_keep;
    if (std::chrono::steady_clock::now() < deadline) {
      cv_.wait_until(lock, stop, deadline, [] { return false; });
      continue;
    }
    std::vector<Idle> expired;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = idle_.begin(); it != idle_.end();) {
      if (now - it->since >= options_.idle_keep) {
        expired.push_back(std::move(*it));
        it = idle_.erase(it);
      } else {
        ++it;
      }
    }
    stats_.freed_idle += expired.size();
    lock.unlock();
    expired.clear();  // the munmap happens without the lock
    lock.lock();
  }
}

WitnessBufferPool& WitnessBufferPool::Shared() {
  // Never destroyed: a synthesis thread still running at exit may hold a
  // lease, and the reaper must not be joined from a static destructor.
  static WitnessBufferPool* const pool = new WitnessBufferPool();
  return *pool;
}

}  // namespace cuzk::snapdeals::witness
