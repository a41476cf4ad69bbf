#include "daemon/http_connection_pool.hpp"

namespace cuzk::daemon {
namespace {

thread_local bool t_rejecting = false;

}  // namespace

ConnectionPool::ConnectionPool(size_t threads, size_t max_connections) : max_connections_(max_connections) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Worker(); });
}

ConnectionPool::~ConnectionPool() { shutdown(); }

bool ConnectionPool::Rejecting() { return t_rejecting; }

void ConnectionPool::enqueue(std::function<void()> fn) {
  {
    absl::MutexLock lock(&mu_);
    if (!stop_ && active_ + queue_.size() < max_connections_) {
      queue_.push_back(std::move(fn));
      return;
    }
  }
  // Over the cap (or stopping): the task still owns the socket and must run
  // to close it; with t_rejecting set it only writes a 503 and closes.
  t_rejecting = true;
  fn();
  t_rejecting = false;
}

void ConnectionPool::shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (stop_ && threads_.empty()) return;
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void ConnectionPool::Worker() {
  for (;;) {
    std::function<void()> fn;
    bool draining = false;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &ConnectionPool::Ready));
      if (queue_.empty()) return;  // stopping, and every accepted connection closed
      fn = std::move(queue_.front());
      queue_.pop_front();
      draining = stop_;
      ++active_;
    }
    // Serves one connection, within the server's request deadline. Once the
    // pool stops, a waiting connection is only closed (503): a full queue
    // would otherwise hold the daemon's exit for 128 / 16 deadlines (24 s).
    t_rejecting = draining;
    fn();
    t_rejecting = false;
    absl::MutexLock lock(&mu_);
    --active_;
  }
}

}  // namespace cuzk::daemon
