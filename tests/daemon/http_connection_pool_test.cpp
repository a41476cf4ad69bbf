// The HTTP endpoint's connection pool (daemon/http_connection_pool.hpp):
// tasks past the cap run at once on the caller with Rejecting() true (the
// server answers them 503 and closes); the others run on the pool's threads.
#include "daemon/http_connection_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace cuzk::daemon {
namespace {

TEST(ConnectionPool, TasksPastTheCapRunInlineAsRejections) {
  ConnectionPool pool(/*threads=*/1, /*max_connections=*/2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::atomic<int> served{0}, rejected_inline{0}, rejected_flag_on_pool{0};
  const auto caller = std::this_thread::get_id();
  // 1: holds the only thread until released; 2: waits in the queue.
  pool.enqueue([&] {
    started.set_value();
    released.wait();
    ++served;
  });
  started.get_future().wait();
  pool.enqueue([&] {
    if (ConnectionPool::Rejecting()) ++rejected_flag_on_pool;
    ++served;
  });
  // 3 and 4: past the cap (1 served + 1 waiting = 2).
  for (int i = 0; i < 2; ++i) {
    pool.enqueue([&] {
      if (ConnectionPool::Rejecting() && std::this_thread::get_id() == caller) ++rejected_inline;
    });
  }
  EXPECT_EQ(rejected_inline, 2);
  EXPECT_FALSE(ConnectionPool::Rejecting()) << "the flag must not outlive the rejected task";
  release.set_value();
  pool.shutdown();  // runs what was queued, then joins
  EXPECT_EQ(served, 2);
  EXPECT_EQ(rejected_flag_on_pool, 0);
}

TEST(ConnectionPool, ServesConnectionsConcurrently) {
  // Four slow connections on four threads: each waits (5 s at most) until all
  // four are inside at once, which a pool that served one at a time never sees.
  ConnectionPool pool(/*threads=*/4, /*max_connections=*/16);
  std::atomic<int> inside{0}, met{0};
  for (int i = 0; i < 4; ++i) {
    pool.enqueue([&] {
      ++inside;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (inside < 4 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (inside == 4) ++met;
    });
  }
  pool.shutdown();
  EXPECT_EQ(met, 4) << "one slow connection must not hold the others";
}

}  // namespace
}  // namespace cuzk::daemon
