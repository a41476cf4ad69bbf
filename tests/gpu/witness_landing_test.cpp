// WitnessLanding (cuda/groth16/witness_landing.hpp): the gate between a key's
// witness bases streaming to the device and the proofs whose witness MSMs
// wait for them. Host code, no GPU: tasks queued while streaming run once,
// in order, on the landing thread; after Land the caller runs its own; a
// failed load tells every queued task and refuses later ones; a task that
// throws still tells its waiter; with deferrals racing the landing, every
// task runs exactly once and no waiter hangs.
#include "cuda/groth16/witness_landing.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

using State = WitnessLanding::State;

TEST(WitnessLandingTest, QueuedTasksRunInOrderOnTheLandingThread) {
  WitnessLanding landing;
  std::vector<int> order;
  std::vector<std::thread::id> ran_on;
  for (int i = 0; i < 5; ++i) {
    const bool queued =
        landing.Defer({.run = [&, i] { order.push_back(i), ran_on.push_back(std::this_thread::get_id()); },
                       .fail = [](std::exception_ptr) { ADD_FAILURE() << "nothing failed"; }});
    EXPECT_TRUE(queued);
  }
  EXPECT_EQ(landing.queued(), 5u);
  EXPECT_TRUE(order.empty()) << "nothing runs before the sections land";
  std::thread::id lander;
  std::thread t([&] {
    lander = std::this_thread::get_id();
    EXPECT_EQ(landing.Land(), 5u);
  });
  t.join();
  landing.Wait();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (const auto& id : ran_on) EXPECT_EQ(id, lander);
  EXPECT_EQ(landing.state(), State::kLanded);
  EXPECT_EQ(landing.queued(), 0u);
  bool ran = false;
  EXPECT_FALSE(landing.Defer({.run = [&] { ran = true; }, .fail = {}})) << "landed: the caller runs it";
  EXPECT_FALSE(ran) << "and it is not kept or run by the landing";
  EXPECT_EQ(landing.queued(), 0u);
  EXPECT_THROW(landing.Land(), std::logic_error);
  EXPECT_THROW(landing.Fail(std::make_exception_ptr(std::runtime_error("late"))), std::logic_error);
}

// A task whose job was cancelled while it waited is told so
// (CancelledBeforeLanding) instead of run; the others run in order, a
// `cancelled` that throws counts as not cancelled, and the count includes
// the skipped one.
TEST(WitnessLandingTest, ACancelledTaskIsToldInsteadOfRun) {
  WitnessLanding landing;
  std::vector<int> ran;
  std::vector<std::string> told;
  std::atomic<bool> cancel{false};
  const auto fail_into = [&](int i) {
    return [&, i](std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (const WitnessLanding::CancelledBeforeLanding& c) {
        told.push_back(std::to_string(i) + ":" + c.what());
      } catch (...) {
        ADD_FAILURE() << "task " << i << " got another error";
      }
    };
  };
  EXPECT_TRUE(landing.Defer({.run = [&] { ran.push_back(0); }, .fail = fail_into(0), .cancelled = nullptr}));
  EXPECT_TRUE(landing.Defer(
      {.run = [&] { ran.push_back(1); }, .fail = fail_into(1), .cancelled = [&] { return cancel.load(); }}));
  EXPECT_TRUE(landing.Defer({.run = [&] { ran.push_back(2); },
                             .fail = fail_into(2),
                             .cancelled = []() -> bool { throw std::runtime_error("no answer"); }}));
  EXPECT_TRUE(
      landing.Defer({.run = [&] { ran.push_back(3); }, .fail = fail_into(3), .cancelled = [] { return false; }}));
  cancel = true;  // the second task's job is cancelled before the sections land
  EXPECT_EQ(landing.Land(), 4u);
  landing.Wait();
  EXPECT_EQ(ran, (std::vector<int>{0, 2, 3}));
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].rfind("1:cancelled before", 0), 0u) << told[0];
}

TEST(WitnessLandingTest, AFailedLoadTellsEveryQueuedTaskAndRefusesLaterOnes) {
  WitnessLanding landing;
  std::vector<std::string> told;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(landing.Defer({.run = [] { ADD_FAILURE() << "a failed load runs nothing"; },
                               .fail =
                                   [&, i](std::exception_ptr e) {
                                     try {
                                       std::rethrow_exception(e);
                                     } catch (const std::runtime_error& r) {
                                       told.push_back(std::to_string(i) + ":" + r.what());
                                     }
                                   }}));
  }
  EXPECT_THROW(landing.Fail(nullptr), std::invalid_argument);
  EXPECT_EQ(landing.state(), State::kStreaming) << "a refused Fail changes nothing";
  EXPECT_EQ(landing.Fail(std::make_exception_ptr(std::runtime_error("section l: digest mismatch"))), 3u);
  landing.Wait();
  EXPECT_EQ(told, (std::vector<std::string>{"0:section l: digest mismatch", "1:section l: digest mismatch",
                                            "2:section l: digest mismatch"}));
  EXPECT_EQ(landing.state(), State::kFailed);
  ASSERT_TRUE(landing.error());
  try {
    landing.Defer({.run = [] {}, .fail = {}});
    ADD_FAILURE() << "a task deferred after the failure was kept";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "section l: digest mismatch");
  }
  EXPECT_EQ(landing.queued(), 0u);
}

// A task whose work throws (a CUDA error in the deferred MSMs) tells its own
// waiter through `fail`; the tasks after it still run.
TEST(WitnessLandingTest, ATaskThatThrowsTellsItsWaiterAndTheRestRun) {
  WitnessLanding landing;
  std::promise<int> first, second;
  std::future<int> f1 = first.get_future(), f2 = second.get_future();
  ASSERT_TRUE(landing.Defer({.run = [] { throw std::runtime_error("out of device memory"); },
                             .fail = [&](std::exception_ptr e) { first.set_exception(e); }}));
  ASSERT_TRUE(landing.Defer({.run = [&] { second.set_value(2); }, .fail = {}}));
  EXPECT_EQ(landing.Land(), 2u);
  EXPECT_THROW(f1.get(), std::runtime_error);
  EXPECT_EQ(f2.get(), 2);
}

// Wait returns only once the queued tasks have run (ForgetKey waits for it
// before it frees the key the tasks read).
TEST(WitnessLandingTest, WaitReturnsAfterTheQueuedTasksRan) {
  WitnessLanding landing;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> task_done{false};
  ASSERT_TRUE(landing.Defer({.run =
                                 [&] {
                                   released.wait();
                                   task_done = true;
                                 },
                             .fail = {}}));
  std::thread lander([&] { landing.Land(); });
  std::atomic<bool> waited{false};
  std::thread waiter([&] {
    landing.Wait();
    waited = true;
    EXPECT_TRUE(task_done) << "Wait returned before the queued task ran";
  });
  // Nothing can let the waiter through before the release (the only way out
  // of the task): no sleep decides the outcome, it only gives it a chance.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(waited);
  release.set_value();
  lander.join();
  waiter.join();
  EXPECT_TRUE(waited);
}

// Deferrals from many threads racing the landing (at a random point): each
// task is run exactly once, by the landing if it was queued, by its caller
// if Defer said landed; every promise is kept.
TEST(WitnessLandingTest, DeferralsRacingTheLandingEachRunOnce) {
  auto rng = test::SeededRng();
  for (int round = 0; round < 20; ++round) {
    WitnessLanding landing;
    constexpr int kThreads = 4, kPerThread = 50;
    std::vector<std::atomic<int>> runs(kThreads * kPerThread);
    std::atomic<int> started{0};
    const int land_after = int(rng() % (kThreads * kPerThread));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          const int id = t * kPerThread + i;
          ++started;
          if (!landing.Defer({.run = [&, id] { ++runs[id]; }, .fail = {}})) ++runs[id];
        }
      });
    }
    std::thread lander([&] {
      while (started.load() < land_after) std::this_thread::yield();
      landing.Land();
    });
    for (auto& t : threads) t.join();
    lander.join();
    landing.Wait();
    for (size_t id = 0; id < runs.size(); ++id) ASSERT_EQ(runs[id].load(), 1) << "round " << round << ", task " << id;
  }
}

}  // namespace
}  // namespace cuzk::cuda
