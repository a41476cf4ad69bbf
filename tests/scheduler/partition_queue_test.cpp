#include "scheduler/partition_queue.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cuzk::scheduler {
namespace {

TEST(PartitionQueue, PriorityThenJobAgeThenPartition) {
  SynthesisQueue<std::string> q;
  q.Push({Priority::kNormal, 1, 3}, "n1p3");
  q.Push({Priority::kNormal, 0, 5}, "n0p5");
  q.Push({Priority::kLow, 0, 0}, "l0p0");
  q.Push({Priority::kCritical, 9, 1}, "c9p1");
  q.Push({Priority::kHigh, 2, 0}, "h2p0");
  q.Push({Priority::kCritical, 9, 0}, "c9p0");
  q.Push({Priority::kNormal, 0, 4}, "n0p4");
  std::vector<std::string> order;
  while (!q.empty()) order.push_back(q.Pop().second);
  EXPECT_EQ(order, (std::vector<std::string>{"c9p0", "c9p1", "h2p0", "n0p4", "n0p5", "n1p3", "l0p0"}));
}

TEST(PartitionQueue, RemoveJobTakesOnlyThatJob) {
  GpuQueue<int> q;
  for (uint32_t p = 0; p < 4; ++p) {
    q.Push({Priority::kNormal, 7, p}, int(p));
    q.Push({Priority::kNormal, 8, p}, 10 + int(p));
  }
  auto removed = q.RemoveJob(7);
  EXPECT_EQ(removed.size(), 4u);
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(q.TopKey().job_seq, 8u);
  EXPECT_THROW(q.Push({Priority::kNormal, 8, 0}, 0), std::logic_error);
}

TEST(PriorityNames, RoundTrip) {
  for (Priority p : {Priority::kLow, Priority::kNormal, Priority::kHigh, Priority::kCritical})
    EXPECT_EQ(ParsePriority(PriorityName(p)), p);
  EXPECT_EQ(ParsePriority("critical"), Priority::kCritical);
  EXPECT_FALSE(ParsePriority("URGENT").has_value());
  EXPECT_GT(BudgetPriority(Priority::kCritical), BudgetPriority(Priority::kHigh));
}

}  // namespace
}  // namespace cuzk::scheduler
