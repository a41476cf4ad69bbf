// util::RunAtLowPriority: the work runs at a lower priority (and so do the
// threads it starts), the caller's priority is untouched, results and
// exceptions come back. util::ThreadLauncher: a lowered caller's work runs
// at the launcher's priority.
#include "engine/util/thread_priority.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cuzk::util {
namespace {

// Whether this environment lets a thread lower its priority at all (a
// sandbox may refuse setpriority; the product then runs on, unchanged).
bool CanLowerPriority() {
  bool ok = false;
  std::thread([&] { ok = LowerThisThreadPriority(1); }).join();
  return ok;
}

TEST(ThreadPriority, WorkRunsLowerAndTheCallerStaysAsItWas) {
  if (!CanLowerPriority()) GTEST_SKIP() << "setpriority refused here";
  const int before = ThisThreadNice();
  if (before > 19 - 5) GTEST_SKIP() << "this process already runs at nice " << before;
  int inside = -100, child = -100;
  const std::string got = RunAtLowPriority(5, [&] {
    inside = ThisThreadNice();
    std::thread t([&] { child = ThisThreadNice(); });  // as util::ParallelFor's workers
    t.join();
    return std::string("done");
  });
  EXPECT_EQ(got, "done");
  EXPECT_EQ(inside, before + 5);
  EXPECT_EQ(child, before + 5) << "threads the work starts inherit its priority";
  EXPECT_EQ(ThisThreadNice(), before);
}

TEST(ThreadPriority, ExceptionsAndVoidWork) {
  EXPECT_THROW(RunAtLowPriority(1, []() -> int { throw std::runtime_error("bad vanilla proof"); }), std::runtime_error);
  bool ran = false;
  RunAtLowPriority(1, [&] { ran = true; });
  EXPECT_TRUE(ran);
  // Never past 19, and zero steps change nothing.
  int at = -100;
  RunAtLowPriority(100, [&] { at = ThisThreadNice(); });
  if (CanLowerPriority()) {
    EXPECT_EQ(at, 19);
  }
  const int before = ThisThreadNice();
  EXPECT_TRUE(LowerThisThreadPriority(0));
  EXPECT_EQ(ThisThreadNice(), before);
}

// A thread lowered (as a synthesis thread is) runs work through a launcher
// made before at normal priority: the work and the threads it starts run at
// the launcher's priority, the caller stays lowered.
TEST(ThreadLauncher, LoweredCallerGetsTheLaunchersPriority) {
  if (!CanLowerPriority()) GTEST_SKIP() << "setpriority refused here";
  const int base = ThisThreadNice();
  if (base > 19 - 10) GTEST_SKIP() << "this process already runs at nice " << base;
  ThreadLauncher launcher;
  EXPECT_EQ(launcher.nice(), base);
  int caller = -100, inside = -100, child = -100, after = -100;
  RunAtLowPriority(10, [&] {
    caller = ThisThreadNice();
    const int got = launcher.Run([&] {
      inside = ThisThreadNice();
      std::thread t([&] { child = ThisThreadNice(); });  // as a load's reading threads
      t.join();
      return 7;
    });
    EXPECT_EQ(got, 7);
    after = ThisThreadNice();
  });
  EXPECT_EQ(caller, base + 10);
  EXPECT_EQ(inside, base);
  EXPECT_EQ(child, base);
  EXPECT_EQ(after, base + 10) << "the caller keeps its own priority";
}

TEST(ThreadLauncher, ResultsExceptionsAndManyCallersAtOnce) {
  ThreadLauncher launcher;
  EXPECT_THROW(launcher.Run([]() -> int { throw std::runtime_error("corrupt image"); }), std::runtime_error);
  bool ran = false;
  launcher.Run([&] { ran = true; });
  EXPECT_TRUE(ran);
  // Callers from several threads at once, each gets its own result; and the
  // work of one may wait for another's (two jobs of one set: the second waits
  // for the first one's load) without holding the launcher up.
  std::mutex mu;
  std::condition_variable cv;
  bool first_started = false;
  std::vector<std::thread> callers;
  std::vector<int> got(8, -1);
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&, i] {
      got[i] = launcher.Run([&, i] {
        std::unique_lock lock(mu);
        if (i == 0) {
          first_started = true;
          cv.notify_all();
        } else {
          cv.wait(lock, [&] { return first_started; });
        }
        return i * i;
      });
    });
  }
  for (auto& t : callers) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], i * i);
}

}  // namespace
}  // namespace cuzk::util
