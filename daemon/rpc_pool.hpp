#pragma once
// RpcPool: the threads that run the daemon's RPC bodies. Every method of the
// service takes its request as raw bytes on gRPC's callback API (so that the
// daemon, not gRPC, decides what malformed or oversized bytes get), and a
// callback must not block gRPC's own threads; the work of a call (parsing,
// validation, a parameter load for PreloadSRS) runs here instead. The pool
// has a fixed number of threads ([daemon] rpc_threads), as gRPC's synchronous
// pool had; calls beyond them wait in a FIFO.
//
//   RpcPool pool(16);
//   pool.Post([reactor] { ...; reactor->Finish(status); });
//
// The destructor runs what is queued, then joins: a posted call is always
// answered.
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace cuzk::daemon {

class RpcPool {
 public:
  explicit RpcPool(uint32_t threads);
  ~RpcPool();
  RpcPool(const RpcPool&) = delete;
  RpcPool& operator=(const RpcPool&) = delete;

  // Never blocks; `work` must not throw (it answers its call itself).
  void Post(std::function<void()> work);

 private:
  void Loop();
  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || !queue_.empty(); }

  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;  // last: started once the queue exists
};

}  // namespace cuzk::daemon
