#pragma once
// The threads of the HTTP status endpoint: cpp-httplib hands every accepted
// connection to a TaskQueue; this one serves `threads` connections at once
// and lets at most `max_connections` (served + waiting) exist. A connection
// beyond the cap is not queued: its task runs at once on the accepting
// thread with Rejecting() true, and the server closes it after a 503
// (HttpServer's process_and_close_socket). So a flood of connections costs
// a bounded queue, never unbounded memory or a stalled accept loop.
//
//   server.new_task_queue = [] { return new ConnectionPool(16, 128); };
#include <httplib.h>

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace cuzk::daemon {

class ConnectionPool final : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t threads, size_t max_connections);
  ~ConnectionPool() override;  // shutdown() if not done

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;  // what is still queued is closed (Rejecting() true), then joins

  // True inside a task that enqueue() ran inline because the cap was
  // reached, or that a worker runs after shutdown() began.
  static bool Rejecting();

 private:
  void Worker();
  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || !queue_.empty(); }

  const size_t max_connections_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  size_t active_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace cuzk::daemon
