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
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (served < 2 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(served, 2);
  EXPECT_EQ(rejected_flag_on_pool, 0) << "a queued task within the cap is served, not rejected";
  pool.shutdown();
}

TEST(ConnectionPool, ShutdownClosesWaitingConnectionsInsteadOfServingThem) {
  // A cap no probe below can reach: a task runs inline only once stopping.
  ConnectionPool pool(/*threads=*/1, /*max_connections=*/1'000'000);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::atomic<int> served{0}, closed{0};
  pool.enqueue([&] {
    started.set_value();
    released.wait();
    ++served;
  });
  started.get_future().wait();
  for (int i = 0; i < 3; ++i) pool.enqueue([&] { ++(ConnectionPool::Rejecting() ? closed : served); });
  std::thread stopper([&] { pool.shutdown(); });
  // Once shutdown() has begun, a new task runs at once as a rejection: that
  // is how this test knows the queued three are now behind a stopping pool.
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> inline_run{false};
  while (!inline_run) {
    pool.enqueue([&] {
      if (ConnectionPool::Rejecting() && std::this_thread::get_id() == caller) inline_run = true;
    });
    if (!inline_run) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  release.set_value();
  stopper.join();
  EXPECT_EQ(served, 1) << "only the connection being served when the pool stopped";
  EXPECT_EQ(closed, 3);
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
