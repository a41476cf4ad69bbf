// util::RunAtLowPriority: the work runs at a lower priority (and so do the
// threads it starts), the caller's priority is untouched, results and
// exceptions come back.
#include "engine/util/thread_priority.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>

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
  if (CanLowerPriority()) EXPECT_EQ(at, 19);
  const int before = ThisThreadNice();
  EXPECT_TRUE(LowerThisThreadPriority(0));
  EXPECT_EQ(ThisThreadNice(), before);
}

}  // namespace
}  // namespace cuzk::util
