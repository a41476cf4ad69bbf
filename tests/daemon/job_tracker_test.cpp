// JobTracker (daemon/job_tracker.hpp) without a daemon: request_id
// idempotency, AwaitProof deadlines, cancellation of queued and running
// jobs through a fake ProofRunner, retention pruning, shutdown.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <thread>

#include "daemon/job_tracker.hpp"

namespace cuzk::daemon {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Queued ids can be taken back; anything else counts as started.
class FakeRunner final : public ProofRunner {
 public:
  void Enqueue(std::shared_ptr<ProofJob> job) override { queued.insert(job->id); }
  std::optional<uint32_t> QueuePosition(const std::string&) const override { return 0; }
  bool RemoveQueued(const std::string& id) override { return queued.erase(id) > 0; }
  RunnerCounts Counts() const override { return {}; }
  bool Shutdown(Clock::time_point) override { return true; }
  std::set<std::string> queued;
};

std::shared_ptr<ProofJob> Job(unsigned partitions = 1) {
  auto j = std::make_shared<ProofJob>();
  j->partitions.resize(partitions);
  j->submitted = Clock::now();
  return j;
}

JobOutcome Completed() {
  JobOutcome o;
  o.kind = JobOutcome::Kind::kCompleted;
  o.proof.assign(192, 7);
  o.timings.total_ms = 5;
  return o;
}

TEST(JobTracker, RequestIdIsIdempotentAndConflictsAreRefused) {
  Metrics metrics;
  JobTracker t(std::chrono::minutes(1), &metrics);
  auto r1 = t.Submit("snap-1-2", "digest-a", Job());
  EXPECT_TRUE(r1.created);
  EXPECT_EQ(r1.job_id, "snap-1-2");
  auto r2 = t.Submit("snap-1-2", "digest-a", Job());
  EXPECT_FALSE(r2.created);
  EXPECT_EQ(r2.job_id, "snap-1-2");
  EXPECT_THROW(t.Submit("snap-1-2", "digest-b", Job()), DuplicateRequestError);
  // Without a request_id every submission is a new job.
  EXPECT_NE(t.Submit("", "d", Job()).job_id, t.Submit("", "d", Job()).job_id);
  EXPECT_EQ(t.Counts().deduplicated, 1u);
  EXPECT_EQ(t.Counts().submitted, 3u);
}

// Until `n` Await calls are waiting inside the tracker (5 s at most).
bool WaitAwaiting(const JobTracker& t, uint64_t n) {
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (t.Counts().awaiting != n) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(JobTracker, AwaitHonoursTheDeadlineAndWakesOnCompletion) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  const std::string id = t.Submit("", "d", Job()).job_id;
  auto t0 = Clock::now();
  JobView v = t.Await(id, t0 + milliseconds(150), nullptr);
  const auto waited = Clock::now() - t0;
  EXPECT_EQ(v.state, JobState::kTimeout);
  EXPECT_GE(waited, milliseconds(150));
  EXPECT_LT(waited, milliseconds(1000));

  auto waiter = std::async(std::launch::async, [&] { return t.Await(id, std::nullopt, nullptr); });
  ASSERT_TRUE(WaitAwaiting(t, 1));  // blocked inside Await: the completion must wake it
  t.OnJobStarted(id);
  t.OnJobFinished(id, Completed());
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(2)), std::future_status::ready);
  v = waiter.get();
  EXPECT_EQ(v.state, JobState::kCompleted);
  EXPECT_EQ(v.proof.size(), 192u);
  EXPECT_THROW(t.Await("nope", std::nullopt, nullptr), JobNotFoundError);

  // A caller who hung up stops waiting within a slice.
  const std::string other = t.Submit("", "d", Job()).job_id;
  t0 = Clock::now();
  v = t.Await(other, std::nullopt, [] { return true; });
  EXPECT_EQ(v.state, JobState::kTimeout);
  EXPECT_LT(Clock::now() - t0, milliseconds(1000));
}

TEST(JobTracker, CancelQueuedAndRunning) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  FakeRunner runner;
  auto queued = Job();
  const std::string q = t.Submit("", "d", queued).job_id;
  runner.Enqueue(queued);
  EXPECT_FALSE(t.Cancel(q, runner));  // was not running
  EXPECT_EQ(t.Await(q, std::nullopt, nullptr).state, JobState::kCancelled);
  EXPECT_TRUE(runner.queued.empty());

  auto running = Job();
  const std::string r = t.Submit("", "d", running).job_id;
  t.OnJobStarted(r);
  EXPECT_TRUE(t.Cancel(r, runner));
  EXPECT_TRUE(running->cancel->cancelled());
  JobView v = t.Await(r, std::nullopt, nullptr);
  EXPECT_EQ(v.state, JobState::kCancelled);
  EXPECT_TRUE(v.stopping);  // the runner has not let go yet
  t.OnJobFinished(r, Completed());  // it finished its stage anyway: the cancellation stands
  v = t.Await(r, std::nullopt, nullptr);
  EXPECT_EQ(v.state, JobState::kCancelled);
  EXPECT_FALSE(v.stopping);
  EXPECT_FALSE(t.Cancel(r, runner));  // already ended
  EXPECT_THROW(t.Cancel("nope", runner), JobNotFoundError);
  EXPECT_EQ(t.Counts().cancelled, 2u);
  EXPECT_EQ(t.Counts().completed, 0u);
}

TEST(JobTracker, FinishedJobsArePrunedAfterRetentionAndTheirRequestIdsFreed) {
  JobTracker t(milliseconds(100), nullptr);
  const std::string id = t.Submit("req", "d", Job()).job_id;
  const std::string active = t.Submit("other", "d", Job()).job_id;
  t.OnJobFinished(id, Completed());
  EXPECT_EQ(t.Prune(), 0u);  // not yet
  std::this_thread::sleep_for(milliseconds(150));
  EXPECT_EQ(t.Prune(), 1u);
  EXPECT_THROW(t.Await(id, std::nullopt, nullptr), JobNotFoundError);
  EXPECT_EQ(t.Await(active, Clock::now(), nullptr).state, JobState::kTimeout);  // active jobs stay
  EXPECT_TRUE(t.Submit("req", "other-digest", Job()).created);  // the id is free again
}

TEST(JobTracker, ShutdownAnswersEveryWaiter) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  const std::string a = t.Submit("", "d", Job()).job_id;
  const std::string b = t.Submit("", "d", Job()).job_id;
  t.OnJobStarted(a);
  auto wa = std::async(std::launch::async, [&] { return t.Await(a, std::nullopt, nullptr); });
  auto wb = std::async(std::launch::async, [&] { return t.Await(b, std::nullopt, nullptr); });
  ASSERT_TRUE(WaitAwaiting(t, 2));
  t.CancelAllActive("shutting down");
  EXPECT_TRUE(WaitAwaiting(t, 0));
  EXPECT_EQ(wa.get().state, JobState::kCancelled);
  const JobView vb = wb.get();
  EXPECT_EQ(vb.state, JobState::kCancelled);
  EXPECT_EQ(vb.error, "shutting down");
}

TEST(Metrics, ExpositionHasCuzkNamesAndCumulativeHistograms) {
  Metrics m;
  JobTimings t;
  t.total_ms = 1500;
  t.gpu_ms = 700;
  m.RecordFinished(JobKind::kSnapDeals, JobOutcome::Kind::kCompleted, t);
  m.RecordFinished(JobKind::kSnapDeals, JobOutcome::Kind::kFailed, t);
  const std::string text = m.Render({});
  for (const char* needle :
       {"\ncuzk_proofs_completed_total 1\n", "\ncuzk_proofs_failed_total 1\n",
        "\ncuzk_proofs_completed{proof_kind=\"SNAP_DEALS_UPDATE\"} 1\n",
        "\ncuzk_proof_duration_seconds_count{proof_kind=\"SNAP_DEALS_UPDATE\"} 1\n",
        "\ncuzk_total_seconds_bucket{proof_kind=\"SNAP_DEALS_UPDATE\",le=\"1\"} 0\n",
        "\ncuzk_total_seconds_bucket{proof_kind=\"SNAP_DEALS_UPDATE\",le=\"2.5\"} 1\n",
        "\ncuzk_total_seconds_bucket{proof_kind=\"SNAP_DEALS_UPDATE\",le=\"+Inf\"} 1\n",
        "# TYPE cuzk_gpu_seconds histogram\n", "\ncuzk_queue_depth 0\n"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle;
  }
}

}  // namespace
}  // namespace cuzk::daemon
