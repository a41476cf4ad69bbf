#pragma once
// WitnessBufferPool: the big z vectors of witness-only synthesis, reused
// from one partition to the next. A 32 GiB partition's z is 81M values
// (2.6 GB); allocated fresh each time it costs ~650k page faults and a
// zeroing pass, and before this pool it then waited whole in host memory
// with every queued partition. Now a synthesis leases a buffer, computes z
// into it (ComputeEmptySectorUpdateWitnessInto, which overwrites every
// value), compacts it, and gives it back: only the compact witness travels on.
//
//   WitnessBufferPool& pool = WitnessBufferPool::Shared();
//   {
//     WitnessBufferPool::Lease z = pool.Acquire(n);                 // idle buffer of >= n values, or an empty one
//     ComputeEmptySectorUpdateWitnessInto(shape, w, z.values());   // sized to n, storage kept when it fits
//     compact = r1cs::CompactWitnessOf(z.values(), threads);
//   }                                                               // back to the pool
//
// Bound: the pool holds at most as many buffers as were ever leased at once
// (one per concurrent synthesis), since a buffer is only made when none is
// idle. Idle buffers are freed after `idle_keep` without use (a reaper
// thread), so a daemon that goes quiet returns to its idle footprint; a busy
// one reuses them back to back. Acquire takes the smallest idle buffer that
// holds n values and no more than 2n (mixed shapes keep their own, and a
// partition never sits on a buffer far beyond what its budget charge
// counts), else the largest smaller one (the witness computation then
// replaces its storage with a bigger one), else a new one.
// Thread-safe. The daemon charges a leased buffer to the partition that
// synthesizes (prover/partition_work.cpp: EstimatePartitionBytes); idle ones
// are not charged: at most one per synthesis thread, for at most idle_keep
// (2 s: a synthesis thread that has more work takes its next partition
// within milliseconds, so reuse needs no longer).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "engine/ff/fr.hpp"

namespace cuzk::snapdeals::witness {

struct WitnessBufferPoolOptions {
  // Idle buffers older than this are freed; zero: freed as soon as they come
  // back (no reuse: what a fresh vector per partition costs).
  std::chrono::milliseconds idle_keep{2'000};
};

struct WitnessBufferPoolStats {
  uint64_t leased = 0;       // buffers out now
  uint64_t idle = 0;         // buffers in the pool now
  uint64_t idle_bytes = 0;   // their capacity in bytes
  uint64_t leased_peak = 0;  // most buffers out at once
  uint64_t acquires = 0;     // Acquire calls
  uint64_t reuses = 0;       // ... served by an idle buffer of sufficient capacity
  uint64_t freed_idle = 0;   // idle buffers freed (idle_keep, Trim)
};

class WitnessBufferPool {
 public:
  explicit WitnessBufferPool(const WitnessBufferPoolOptions& options = {});
  ~WitnessBufferPool();  // every lease must be back (a lease holds a pointer to its pool)
  WitnessBufferPool(const WitnessBufferPool&) = delete;
  WitnessBufferPool& operator=(const WitnessBufferPool&) = delete;

  // Move-only; gives its buffer back on destruction.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { Return(); }

    // The buffer: any size and content on arrival (the caller sizes it and
    // must overwrite what it reads); its capacity is what the pool keeps.
    std::vector<ff::Fr>& values() { return values_; }
    void Return();  // back to the pool now (no-op when empty)

   private:
    friend class WitnessBufferPool;
    WitnessBufferPool* pool_ = nullptr;
    std::vector<ff::Fr> values_;
  };

  // A buffer for `n` values: the smallest idle one with capacity in
  // [n, 2n], else the largest idle one below n, else a new empty vector.
  // Never blocks.
  Lease Acquire(size_t n);
  WitnessBufferPoolStats Stats() const;
  void Trim();  // frees every idle buffer now

  // The process's pool: the daemon's synthesis threads share it across jobs.
  static WitnessBufferPool& Shared();

 private:
  struct Idle {
    std::vector<ff::Fr> values;
    std::chrono::steady_clock::time_point since;
  };
  void Give(std::vector<ff::Fr>&& values);
  void Reap(std::stop_token stop);

  const WitnessBufferPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;  // a buffer came back (the reaper's next deadline)
  std::vector<Idle> idle_;          // guarded by mu_
  WitnessBufferPoolStats stats_;    // guarded by mu_ (leased, counters; idle figures computed)
  std::jthread reaper_;             // last: started after the members it uses
};

}  // namespace cuzk::snapdeals::witness
