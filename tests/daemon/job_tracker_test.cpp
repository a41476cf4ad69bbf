// JobTracker (prover/job_tracker.hpp) without a daemon: request_id
// joins and retries, generated ids, the journal writes, restored jobs, await deadlines and withdrawn waiters,
// cancellation of queued and running jobs through a fake runner, retention pruning, shutdown.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "prover/job_tracker.hpp"

namespace cuzk::prover {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Queued ids can be taken back; anything else counts as started.
class FakeRunner final : public JobCanceller {
 public:
  bool RemoveQueued(const std::string& id) override { return queued.erase(id) > 0; }
  bool Cancel(const std::string& id) override {
    cancelled.insert(id);
    return true;
  }
  std::set<std::string> queued, cancelled;
};

std::shared_ptr<ProofJob> Job(unsigned partitions = 1) {
  auto j = std::make_shared<ProofJob>();
  j->partitions.resize(partitions);
  j->submitted = Clock::now();
  return j;
}

JobResult Completed() {
  JobResult o;
  o.outcome = JobOutcome::kCompleted;
  o.proof.assign(192, 7);
  o.timings.total_ms = 5;
  return o;
}

JobResult Failed() {
  JobResult o;
  o.outcome = JobOutcome::kFailed;
  o.error = "partition 0: synthesis: unsatisfied";
  return o;
}

// Curio's retry semantics: the same request_id and request join a queued,
// running or completed job; a failed or cancelled one, or another request
// under the same id, start a new job and the id then names the new one.
TEST(JobTracker, RequestIdJoinsLiveOrCompletedJobsAndRetriesFailedOnes) {
  Metrics metrics;
  JobTracker t(std::chrono::minutes(1), &metrics);
  auto r1 = t.Submit("snap-1-2", "digest-a", Job());
  EXPECT_TRUE(r1.created);
  EXPECT_EQ(r1.job_id, "snap-1-2");
  EXPECT_FALSE(t.Submit("snap-1-2", "digest-a", Job()).created);  // queued: joined
  t.OnJobStarted(r1.job_id);
  EXPECT_EQ(t.Join("snap-1-2", "digest-a"), r1.job_id);  // running: joined
  t.OnJobFinished(r1.job_id, Failed());

  // Failed: a new job with its own id; the old one stays readable by its id.
  auto r2 = t.Submit("snap-1-2", "digest-a", Job());
  EXPECT_TRUE(r2.created);
  EXPECT_NE(r2.job_id, r1.job_id);
  EXPECT_EQ(t.Await(r1.job_id, std::nullopt).state, JobState::kFailed);
  EXPECT_EQ(t.Join("snap-1-2", "digest-a"), r2.job_id);  // the id names the newest
  t.OnJobFinished(r2.job_id, Completed());

  // Completed: joined, and the proof is there at once.
  auto r3 = t.Submit("snap-1-2", "digest-a", Job());
  EXPECT_FALSE(r3.created);
  EXPECT_EQ(r3.job_id, r2.job_id);
  EXPECT_EQ(t.Await(r3.job_id, std::nullopt).proof.size(), 192u);

  // Another request under the same id: a new job, even though the old one completed.
  auto r4 = t.Submit("snap-1-2", "digest-b", Job());
  EXPECT_TRUE(r4.created);
  EXPECT_NE(r4.job_id, r2.job_id);
  EXPECT_EQ(t.Await(r2.job_id, std::nullopt).state, JobState::kCompleted);

  // Cancelled: a new job.
  FakeRunner runner;
  runner.queued.insert(r4.job_id);
  t.Cancel(r4.job_id, runner);
  auto r5 = t.Submit("snap-1-2", "digest-b", Job());
  EXPECT_TRUE(r5.created);
  EXPECT_NE(r5.job_id, r4.job_id);

  // Without a request_id every submission is a new job.
  EXPECT_NE(t.Submit("", "d", Job()).job_id, t.Submit("", "d", Job()).job_id);
  EXPECT_EQ(t.Counts().deduplicated, 4u);  // two Submits and two Joins found a job
  EXPECT_EQ(t.Counts().submitted, 6u);
}

// Generated ids are 128 random bits ("job-" + 32 hex digits): a client's
// request_id can neither take one nor make the next one predictable.
TEST(JobTracker, GeneratedIdsCannotBeTakenOrSteeredByClients) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  EXPECT_EQ(t.Submit("job-94", "d", Job()).job_id, "job-94");  // a client's id is kept
  const std::string a = t.Submit("", "d", Job()).job_id;
  const std::string b = t.Submit("", "d", Job()).job_id;
  for (const std::string& id : {a, b}) {
    ASSERT_EQ(id.size(), 4u + 32u) << id;
    EXPECT_EQ(id.substr(0, 4), "job-");
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 4), std::string::npos) << id;
  }
  EXPECT_NE(a, "job-95");
  EXPECT_NE(a, b);
  // A client that sends a generated id as its request_id gets a job of its own.
  const auto taken = t.Submit(a, "other", Job());
  EXPECT_TRUE(taken.created);
  EXPECT_NE(taken.job_id, a);
  EXPECT_EQ(t.Join(a, "other"), taken.job_id);
  EXPECT_EQ(t.Join(a, "d"), std::nullopt);  // the generated job is not joined through its id
  EXPECT_EQ(t.Await(a, Clock::now()).state, JobState::kQueued);
}

// Records what the tracker writes; tests the order of writes and answers.
class FakeJournal final : public JobJournal {
 public:
  void RecordAccepted(const JournalJob& j) override { Log("accepted " + j.id); }
  void RecordStarted(const std::string& id) override { Log("started " + id); }
  void RecordFinished(const JournalJob& j) override {
    Log(std::string(JobStateName(j.state)) + " " + j.id + " proof " + std::to_string(j.proof.size()));
  }
  void Forget(const std::string& id, int64_t) override { Log("forget " + id); }
  std::vector<JournalJob> LoadAll() override { return {}; }
  void Log(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(line);
  }
  std::vector<std::string> Lines() {
    std::lock_guard<std::mutex> lock(mu);
    return lines;
  }
  std::mutex mu;
  std::vector<std::string> lines;
};

TEST(JobTracker, WritesStartsEndsAndPruningToTheJournalButNotShutdownCancellations) {
  FakeJournal journal;
  JobTracker t(milliseconds(200), nullptr, &journal);
  const std::string a = t.Submit("a", "d", Job()).job_id;
  const std::string b = t.Submit("b", "d", Job()).job_id;
  const std::string c = t.Submit("c", "d", Job()).job_id;
  t.OnJobStarted(a);
  // The end is written before the waiter hears of it.
  std::vector<std::string> seen_by_waiter;
  t.AwaitAsync(a, std::nullopt, [&](JobView) { seen_by_waiter = journal.Lines(); });
  t.OnJobFinished(a, Completed());
  EXPECT_EQ(seen_by_waiter, (std::vector<std::string>{"started a", "completed a proof 192"}));
  FakeRunner runner;
  runner.queued.insert(b);
  t.Cancel(b, runner);  // a client's cancellation is final: written
  t.BeginShutdown();
  JobResult dropped;
  dropped.outcome = JobOutcome::kCancelled;
  t.OnJobFinished(c, dropped);  // the shutdown's: not written (queued again on restart)
  t.CancelAllActive("shutting down");
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (journal.Lines().size() < 5 && Clock::now() < until) std::this_thread::sleep_for(milliseconds(5));
  std::this_thread::sleep_for(milliseconds(300));  // c's retention ends too: nothing is written for it
  const std::vector<std::string> lines = journal.Lines();
  ASSERT_EQ(lines.size(), 5u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[2], "cancelled b proof 0");
  // Retention: a and b are pruned and forgotten, in any order.
  const std::set<std::string> forgotten(lines.begin() + 3, lines.end());
  EXPECT_TRUE(forgotten.count("forget a") && forgotten.count("forget b")) << ::testing::PrintToString(lines);
}

// A RecordFinished that waits until the test lets it go.
class GatedJournal final : public JobJournal {
 public:
  void RecordAccepted(const JournalJob&) override {}
  void RecordStarted(const std::string&) override {}
  void RecordFinished(const JournalJob&) override {
    writing.store(true);
    gate.get_future().wait();
  }
  void Forget(const std::string&, int64_t) override {}
  std::vector<JournalJob> LoadAll() override { return {}; }
  std::atomic<bool> writing{false};
  std::promise<void> gate;
};

// A client that asks while a job's end is being written waits for the
// write: nobody holds a result that a crash right then would undo.
TEST(JobTracker, AnEndReachesWaitersOnlyOnceWritten) {
  GatedJournal journal;
  JobTracker t(std::chrono::minutes(1), nullptr, &journal);
  const std::string id = t.Submit("a", "d", Job()).job_id;
  std::thread finisher([&] { t.OnJobFinished(id, Completed()); });
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (!journal.writing.load() && Clock::now() < until) std::this_thread::sleep_for(milliseconds(1));
  ASSERT_TRUE(journal.writing.load());
  std::atomic<bool> answered{false};
  t.AwaitAsync(id, std::nullopt, [&](JobView v) {
    EXPECT_EQ(v.state, JobState::kCompleted);
    answered.store(true);
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(answered.load());  // the end is not durable yet
  journal.gate.set_value();
  finisher.join();
  EXPECT_TRUE(answered.load());  // answered by the write's end, on the finisher's thread
}

// A job read back from the journal: unfinished ones are queued, finished
// ones answer with their proof, and the request_id names the newest.
TEST(JobTracker, RestoredJobsKeepTheirIdsStatesAndRequestIds) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  JournalJob done;
  done.id = "snap-7";
  done.request_id = "snap-7";
  done.digest = "d";
  done.state = JobState::kCompleted;
  done.proof.assign(192, 3);
  done.submitted_unix_ms = UnixMillisNow() - 5000;
  done.ended_unix_ms = UnixMillisNow() - 1000;
  t.Restore(done, 0);
  JournalJob queued = done;
  queued.id = "snap-8";
  queued.request_id = "snap-8";
  queued.state = JobState::kQueued;
  queued.proof.clear();
  t.Restore(queued, 1);
  const JobView v = t.Await("snap-7", Clock::now());
  EXPECT_EQ(v.state, JobState::kCompleted);
  EXPECT_EQ(v.proof, done.proof);
  EXPECT_GE(v.age_ms, 4000);  // the original submit time
  EXPECT_EQ(t.Join("snap-7", "d"), "snap-7");
  EXPECT_EQ(t.Join("snap-8", "d"), "snap-8");
  EXPECT_TRUE(t.Await("snap-8", Clock::now()).timed_out);
  t.OnJobFinished("snap-8", Completed());
  EXPECT_EQ(t.Await("snap-8", std::nullopt).state, JobState::kCompleted);
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
  JobView v = t.Await(id, t0 + milliseconds(150));
  const auto waited = Clock::now() - t0;
  EXPECT_TRUE(v.timed_out);
  EXPECT_EQ(v.state, JobState::kQueued);
  EXPECT_GE(waited, milliseconds(150));
  EXPECT_LT(waited, milliseconds(1000));

  auto waiter = std::async(std::launch::async, [&] { return t.Await(id, std::nullopt); });
  ASSERT_TRUE(WaitAwaiting(t, 1));  // registered: the completion must answer it
  t.OnJobStarted(id);
  t.OnJobFinished(id, Completed());
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(2)), std::future_status::ready);
  v = waiter.get();
  EXPECT_EQ(v.state, JobState::kCompleted);
  EXPECT_FALSE(v.timed_out);
  EXPECT_EQ(v.proof.size(), 192u);
  EXPECT_THROW(t.Await("nope", std::nullopt), JobNotFoundError);
  // A job that already ended answers at once, before AwaitAsync returns.
  bool answered = false;
  t.AwaitAsync(id, std::nullopt, [&](JobView) { answered = true; });
  EXPECT_TRUE(answered);
}

// Many waiters hold no thread; deadlines fire in order from one timer; a
// withdrawn waiter (its client hung up) is never called.
TEST(JobTracker, AsyncWaitersWithDeadlinesAndWithdrawals) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  const std::string id = t.Submit("", "d", Job()).job_id;
  std::mutex mu;
  std::vector<int> order;  // which waiters were called, in order
  int completed = 0;
  std::vector<uint64_t> ids(1000);
  auto await = [&](int i, std::optional<Clock::time_point> deadline) {
    ids[i] = t.AwaitAsync(id, deadline, [&, i](JobView v) {
      std::lock_guard lock(mu);
      if (v.timed_out) {
        order.push_back(i);
      } else {
        EXPECT_EQ(v.state, JobState::kCompleted);
        ++completed;
      }
    });
  };
  // The deadline-less waiters first, so that registering them (slow under a
  // sanitizer) does not eat into the deadlines, which start from a fresh now().
  for (int i = 3; i < 1000; ++i) await(i, std::nullopt);
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) await(i, t0 + milliseconds(100 * (3 - i)));  // 300, 200, 100 ms: reverse order
  // All 1000 are held, as long as no deadline can have fired yet: the count is
  // read before a clock that is still short of the first deadline.
  const uint64_t awaiting = t.Counts().awaiting;
  if (Clock::now() < t0 + milliseconds(100)) {
    EXPECT_EQ(awaiting, 1000u);
  }
  EXPECT_TRUE(t.Withdraw(ids[10]));
  EXPECT_FALSE(t.Withdraw(ids[10]));
  ASSERT_TRUE(WaitAwaiting(t, 996));  // the three deadlines passed
  EXPECT_GE(Clock::now() - t0, milliseconds(300));
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(order, (std::vector<int>{2, 1, 0}));
  }
  t.OnJobFinished(id, Completed());  // answers the rest on this thread
  EXPECT_EQ(completed, 996);
  EXPECT_EQ(t.Counts().awaiting, 0u);
  EXPECT_FALSE(t.Withdraw(ids[500]));  // already answered
}

TEST(JobTracker, CancelQueuedAndRunning) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  FakeRunner runner;
  auto queued = Job();
  const std::string q = t.Submit("", "d", queued).job_id;
  runner.queued.insert(q);
  EXPECT_FALSE(t.Cancel(q, runner));  // was not running
  EXPECT_EQ(t.Await(q, std::nullopt).state, JobState::kCancelled);
  EXPECT_TRUE(runner.queued.empty());

  auto running = Job();
  const std::string r = t.Submit("", "d", running).job_id;
  t.OnJobStarted(r);
  EXPECT_TRUE(t.Cancel(r, runner));
  EXPECT_EQ(runner.cancelled.count(r), 1u);  // the runner was told at once
  JobView v = t.Await(r, std::nullopt);
  EXPECT_EQ(v.state, JobState::kCancelled);
  EXPECT_TRUE(v.stopping);          // the runner has not let go yet
  t.OnJobFinished(r, Completed());  // it finished its stage anyway: the cancellation stands
  v = t.Await(r, std::nullopt);
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
  EXPECT_EQ(t.Counts().retained, 1u);  // not yet
  // The timer prunes it once its retention has run out (no caller needed).
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (t.Counts().pruned == 0 && Clock::now() < until) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(t.Counts().pruned, 1u);
  EXPECT_THROW(t.Await(id, std::nullopt), JobNotFoundError);
  EXPECT_TRUE(t.Await(active, Clock::now()).timed_out);             // active jobs stay
  EXPECT_EQ(t.Submit("req", "other-digest", Job()).job_id, "req");  // the id is free again
}

TEST(JobTracker, ShutdownAnswersEveryWaiter) {
  JobTracker t(std::chrono::minutes(1), nullptr);
  const std::string a = t.Submit("", "d", Job()).job_id;
  const std::string b = t.Submit("", "d", Job()).job_id;
  t.OnJobStarted(a);
  auto wa = std::async(std::launch::async, [&] { return t.Await(a, std::nullopt); });
  auto wb = std::async(std::launch::async, [&] { return t.Await(b, std::nullopt); });
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
  t.gpu_compute_ms = 700;
  m.RecordFinished(JobKind::kSnapDeals, JobOutcome::kCompleted, t);
  m.RecordFinished(JobKind::kSnapDeals, JobOutcome::kFailed, t);
  const std::string text = m.Render({});
  for (const char* needle : {"\ncuzk_proofs_completed_total 1\n", "\ncuzk_proofs_failed_total 1\n",
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
}  // namespace cuzk::prover
