// The threaded Pipeline with fake work: proofs merged in partition order,
// split proving (the GPU worker never waits for the finalizer), priority,
// a failed partition failing its job exactly once with nothing leaked,
// cancellation releasing reservations (as /status shows), submission checks.
#include "scheduler/pipeline.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "scheduler/pipeline_status_json.hpp"
#include "scheduler/timeline.hpp"
#include "tools/simulator/timeline_plot.hpp"

namespace cuzk::scheduler {
namespace {

using namespace std::chrono_literals;

std::atomic<int> g_live_data{0};

struct FakeData : StageData {
  explicit FakeData(uint32_t p, memory::PinnedBuffer b = {}) : partition(p), buffer(std::move(b)) { ++g_live_data; }
  ~FakeData() override { --g_live_data; }
  std::string TimingDetail() const override { return detail; }
  uint32_t partition;
  memory::PinnedBuffer buffer;
  std::string detail;  // what the GPU start measured inside itself (StageData::TimingDetail)
};

// Collects lines from every thread.
struct Log {
  std::mutex mu;
  std::vector<std::string> lines;
  TimelineSink Sink() {
    return [this](std::string_view l) {
      std::lock_guard lock(mu);
      lines.emplace_back(l);
    };
  }
  std::vector<TimelineEvent> Events(const std::string& event = "") {
    std::lock_guard lock(mu);
    std::vector<TimelineEvent> out;
    for (auto& l : lines)
      if (auto e = ParseTimelineLine(l); e && (event.empty() || e->event == event)) out.push_back(*e);
    return out;
  }
  size_t Count(const std::string& prefix) {
    std::lock_guard lock(mu);
    return size_t(std::count_if(lines.begin(), lines.end(), [&](auto& l) { return l.rfind(prefix, 0) == 0; }));
  }
};

enum class FailAt { kNone, kSynth, kGpu, kFinish, kVerify };

int ThreadNice() { return ::getpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid))); }

class FakeWork : public JobWork {
 public:
  FakeWork(uint8_t tag, PartitionBytes bytes) : tag_(tag), bytes_(bytes) {}
  std::chrono::milliseconds synth{2}, gpu{2}, finish{1};
  FailAt fail = FailAt::kNone;
  uint32_t fail_partition = 0;
  bool use_pinned = false;
  bool block_until_cancelled = false;  // synthesis spins on the token
  std::shared_future<void> gate;       // synthesis of partition 0 waits for it, if valid
  std::shared_future<void> gpu_gate;   // every GPU start waits for it, if valid

  std::mutex mu;
  std::vector<std::string> events;  // "S3", "G3", "F3", "V3"
  std::atomic<int> synth_started{0};
  // Nice values seen by the stages (and by a thread synthesis spawns, as an
  // engine call's ParallelFor does).
  std::atomic<int> synth_nice{-100}, synth_child_nice{-100}, gpu_nice{-100};

  PartitionBytes EstimateBytes(uint32_t) const override { return bytes_; }

  std::unique_ptr<StageData> Synthesize(const PartitionContext& c) override {
    ++synth_started;
    synth_nice = ThreadNice();
    std::thread([this] { synth_child_nice = ThreadNice(); }).join();
    Record("S", c.partition);
    if (gate.valid() && c.partition == 0) gate.wait();
    while (block_until_cancelled) {
      c.cancel.ThrowIfCancelled();
      std::this_thread::sleep_for(1ms);
    }
    std::this_thread::sleep_for(synth);
    if (fail == FailAt::kSynth && c.partition == fail_partition) throw std::runtime_error("witness is unsatisfied");
    memory::PinnedBuffer b;
    if (use_pinned) b = c.LeaseAbcBuffer(bytes_.abc);
    return std::make_unique<FakeData>(c.partition, std::move(b));
  }
  std::unique_ptr<StageData> GpuStart(const PartitionContext& c, std::unique_ptr<StageData> s) override {
    Record("G", c.partition);
    gpu_nice = ThreadNice();
    if (gpu_gate.valid()) gpu_gate.wait();
    EXPECT_EQ(static_cast<FakeData&>(*s).partition, c.partition);
    std::this_thread::sleep_for(gpu);
    if (fail == FailAt::kGpu && c.partition == fail_partition) throw std::runtime_error("device out of memory");
    s.reset();  // a/b/c are consumed here
    auto pending = std::make_unique<FakeData>(c.partition);
    pending->detail = ",fake_step_ms=" + std::to_string(c.partition) + ".50";
    return pending;
  }
  std::vector<uint8_t> Finish(const PartitionContext& c, std::unique_ptr<StageData> p) override {
    Record("F", c.partition);
    std::this_thread::sleep_for(finish);
    if (fail == FailAt::kFinish && c.partition == fail_partition) throw std::runtime_error("G2 MSM failed");
    return {tag_, uint8_t(c.partition), uint8_t(~c.partition)};
  }
  bool Verify(const PartitionContext& c, std::span<const uint8_t> proof) override {
    Record("V", c.partition);
    if (fail == FailAt::kVerify && c.partition == fail_partition) return false;
    return proof.size() == 3 && proof[0] == tag_ && proof[1] == uint8_t(c.partition);
  }

 private:
  void Record(const char* stage, uint32_t p) {
    std::lock_guard lock(mu);
    events.push_back(stage + std::to_string(p));
  }
  uint8_t tag_;
  PartitionBytes bytes_;
};

// Results by job id, with a wait.
struct Results {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, std::vector<JobResult>> by_id;
  std::function<void(JobResult)> Callback() {
    return [this](JobResult r) {
      std::lock_guard lock(mu);
      by_id[r.job_id].push_back(std::move(r));
      cv.notify_all();
    };
  }
  bool WaitFor(size_t jobs, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return by_id.size() >= jobs; });
  }
};

PipelineConfig FastConfig(Log* log, unsigned synth_threads = 4, unsigned workers = 2) {
  PipelineConfig c;
  c.synthesis_threads = synth_threads;
  c.gpu_devices = {0};
  c.gpu_workers_per_device = workers;
  c.pacer.target = 4;
  c.pacer.bootstrap_spacing_s = 0;
  c.pacer.initial_gpu_time_s = 0.002;  // known: bootstrap does not wait for a measurement
  if (log) c.timeline = log->Sink();
  return c;
}

bool WaitUntil(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 5s) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(Pipeline, CompletesJobsWithVerifiedProofsMergedInPartitionOrder) {
  memory::Budget budget(1000);
  Log log;
  Results results;
  {
    Pipeline pipeline(FastConfig(&log), budget);
    for (uint8_t j = 0; j < 3; ++j)
      pipeline.Submit({"job-" + std::to_string(j), Priority::kNormal, 5,
                       std::make_shared<FakeWork>(j, PartitionBytes{30, 20}), results.Callback()});
    ASSERT_TRUE(results.WaitFor(3));
    EXPECT_TRUE(WaitUntil([&] { return budget.reserved() == 0; }));
    const PipelineStatus s = pipeline.Status();
    EXPECT_EQ(s.jobs_completed, 3u);
    EXPECT_TRUE(s.jobs.empty());  // completed jobs are not kept
  }
  for (uint8_t j = 0; j < 3; ++j) {
    auto& v = results.by_id.at("job-" + std::to_string(j));
    ASSERT_EQ(v.size(), 1u);
    const JobResult& r = v[0];
    EXPECT_EQ(r.outcome, JobOutcome::kCompleted) << r.error;
    ASSERT_EQ(r.partition_proofs.size(), 5u);
    std::vector<uint8_t> expected;
    for (uint8_t p = 0; p < 5; ++p) {
      EXPECT_EQ(r.partition_proofs[p], (std::vector<uint8_t>{j, p, uint8_t(~p)}));
      expected.insert(expected.end(), {j, p, uint8_t(~p)});
    }
    EXPECT_EQ(r.proof, expected);
    EXPECT_GE(r.timings.synthesis_ms, 5 * 2 * 0.9);
    EXPECT_GE(r.timings.gpu_compute_ms, 5 * 2 * 0.9);
    EXPECT_GE(r.timings.total_ms, r.timings.queue_wait_ms);
    EXPECT_GE(r.timings.finalize_ms, 5 * 1 * 0.9);
    EXPECT_LE(r.timings.verify_ms, r.timings.finalize_ms);
  }
  for (const char* e : {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END", "FIN_END"})
    EXPECT_EQ(log.Events(e).size(), 15u) << e;
  EXPECT_EQ(log.Count("GPU_TIMING,"), 15u);
  {  // each GPU_TIMING line ends with its partition's own steps
    std::lock_guard lock(log.mu);
    size_t with_steps = 0;
    for (const std::string& l : log.lines) {
      if (l.rfind("GPU_TIMING,", 0) != 0) continue;
      const size_t at = l.find(",partition=");
      ASSERT_NE(at, std::string::npos) << l;
      const std::string p = l.substr(at + 11, l.find(',', at + 1) - at - 11);
      const std::string tail = ",fake_step_ms=" + p + ".50";
      EXPECT_EQ(l.substr(l.size() - std::min(l.size(), tail.size())), tail) << l;
      ++with_steps;
    }
    EXPECT_EQ(with_steps, 15u);
  }
  EXPECT_EQ(log.Count("FIN_TIMING,"), 15u);
  EXPECT_GE(log.Count("PACER,"), 2u);
  EXPECT_EQ(g_live_data.load(), 0);
  EXPECT_LE(budget.peak(), 1000u);
}

TEST(Pipeline, SynthesisThreadsRunAtLowerPriorityThanGpuWorkers) {
  // Synthesis saturating the cores must not starve the GPU workers' host
  // steps: synthesis threads (and the threads they spawn) are niced.
  const int base = ThreadNice();
  if (base + 5 > 19) GTEST_SKIP() << "already at nice " << base;
  memory::Budget budget(1000);
  Results results;
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{30, 20});
  {
    PipelineConfig config = FastConfig(nullptr);
    config.synthesis_nice = 5;
    Pipeline pipeline(config, budget);
    pipeline.Submit({"job", Priority::kNormal, 2, work, results.Callback()});
    ASSERT_TRUE(results.WaitFor(1));
  }
  std::printf("nice: test thread %d, synthesis %d, its child %d, GPU worker %d\n", base, work->synth_nice.load(),
              work->synth_child_nice.load(), work->gpu_nice.load());
  EXPECT_EQ(work->synth_nice.load(), base + 5);
  EXPECT_EQ(work->synth_child_nice.load(), base + 5);
  EXPECT_EQ(work->gpu_nice.load(), base);
  EXPECT_EQ(ThreadNice(), base);  // the process and other threads are untouched
}

TEST(Pipeline, RunAheadCeilingHoldsDispatchWhileTheGpuIsStuck) {
  // One GPU worker stuck on the first partition that reaches it (whichever
  // finishes synthesis first); synthesis is fast and plentiful and the pacer
  // would dispatch freely (target 100). With max_run_ahead 3, only 3
  // partitions may be synthesizing or queued behind it.
  memory::Budget budget(1000000);
  Results results;
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{10, 5});
  std::promise<void> release;
  work->gpu_gate = release.get_future().share();
  {
    PipelineConfig config = FastConfig(nullptr, 8, 1);
    config.pacer.target = 100;
    config.max_run_ahead = 3;
    Pipeline pipeline(config, budget);
    pipeline.Submit({"job", Priority::kNormal, 12, work, results.Callback()});
    ASSERT_TRUE(WaitUntil([&] { return work->synth_started.load() >= 4; }));
    std::this_thread::sleep_for(200ms);  // time for any dispatch past the ceiling
    const int started = work->synth_started.load();
    std::printf("GPU stuck: %d of 12 partitions started synthesis (1 on the GPU + ceiling 3)\n", started);
    EXPECT_EQ(started, 4);
    release.set_value();
    ASSERT_TRUE(results.WaitFor(1));
    EXPECT_EQ(results.by_id.at("job")[0].outcome, JobOutcome::kCompleted);
  }
  EXPECT_EQ(work->synth_started.load(), 12);
}

TEST(Pipeline, SplitProvingGpuWorkerDoesNotWaitForTheFinalizer) {
  memory::Budget budget(1000);
  Log log;
  Results results;
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{10, 5});
  work->gpu = 3ms;
  work->finish = 40ms;  // a slow epilogue on one finalizer thread
  {
    Pipeline pipeline(FastConfig(&log, 8, 1), budget);
    pipeline.Submit({"split", Priority::kNormal, 8, work, results.Callback()});
    ASSERT_TRUE(results.WaitFor(1));
  }
  ASSERT_EQ(results.by_id.at("split")[0].outcome, JobOutcome::kCompleted);
  // Per partition: synthesis, then GPU start, then finish, then verify.
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < work->events.size(); ++i) at[work->events[i]] = i;
  for (int p = 0; p < 8; ++p) {
    const std::string n = std::to_string(p);
    EXPECT_LT(at.at("S" + n), at.at("G" + n));
    EXPECT_LT(at.at("G" + n), at.at("F" + n));
    EXPECT_LT(at.at("F" + n), at.at("V" + n));
  }
  // The GPU ran ahead: every GPU start was over before half the finalizations.
  auto gpu_end = log.Events("GPU_END");
  auto fin_end = log.Events("FIN_END");
  ASSERT_EQ(gpu_end.size(), 8u);
  ASSERT_EQ(fin_end.size(), 8u);
  double last_gpu = 0;
  for (auto& e : gpu_end) last_gpu = std::max(last_gpu, e.ms);
  std::vector<double> fins;
  for (auto& e : fin_end) fins.push_back(e.ms);
  std::sort(fins.begin(), fins.end());
  EXPECT_LT(last_gpu, fins[3]);
}

TEST(Pipeline, CriticalJobGoesBeforePendingNormalPartitions) {
  memory::Budget budget(1000);
  Log log;
  Results results;
  std::promise<void> open;
  {
    Pipeline pipeline(FastConfig(&log, 1, 1), budget);
    auto plug = std::make_shared<FakeWork>(9, PartitionBytes{1, 0});
    plug->gate = open.get_future().share();
    pipeline.Submit({"plug", Priority::kLow, 1, plug, results.Callback()});
    ASSERT_TRUE(WaitUntil([&] { return plug->synth_started.load() == 1; }));
    for (int j = 0; j < 3; ++j)
      pipeline.Submit({"normal-" + std::to_string(j), Priority::kNormal, 4,
                       std::make_shared<FakeWork>(uint8_t(j), PartitionBytes{1, 0}), results.Callback()});
    pipeline.Submit(
        {"high", Priority::kHigh, 2, std::make_shared<FakeWork>(7, PartitionBytes{1, 0}), results.Callback()});
    pipeline.Submit(
        {"critical", Priority::kCritical, 4, std::make_shared<FakeWork>(8, PartitionBytes{1, 0}), results.Callback()});
    const PipelineStatus s = pipeline.Status();
    EXPECT_EQ(s.synthesis_queue, 18u);
    open.set_value();
    ASSERT_TRUE(results.WaitFor(6));
  }
  std::vector<std::string> order;
  for (auto& e : log.Events("SYNTH_START")) order.push_back(e.job + "/" + std::to_string(e.partition));
  std::vector<std::string> expected = {"plug/0",     "critical/0", "critical/1", "critical/2",
                                       "critical/3", "high/0",     "high/1"};
  for (int j = 0; j < 3; ++j)
    for (int p = 0; p < 4; ++p) expected.push_back("normal-" + std::to_string(j) + "/" + std::to_string(p));
  EXPECT_EQ(order, expected);
  for (auto& [id, v] : results.by_id) EXPECT_EQ(v.at(0).outcome, JobOutcome::kCompleted) << id;
}

class PipelineFailure : public ::testing::TestWithParam<FailAt> {};

TEST_P(PipelineFailure, FailsTheJobOnceSkipsSiblingsLeaksNothing) {
  constexpr uint64_t kMiB = uint64_t(1) << 20;  // pinned buffers are page-rounded
  memory::Budget budget(100 * kMiB);
  memory::PinnedPool pinned(budget);
  Log log;
  Results results;
  {
    Pipeline pipeline(FastConfig(&log, 3, 2), budget, &pinned);
    auto bad = std::make_shared<FakeWork>(1, PartitionBytes{10 * kMiB, 6 * kMiB});
    bad->fail = GetParam();
    bad->fail_partition = 3;
    bad->use_pinned = true;
    auto good = std::make_shared<FakeWork>(2, PartitionBytes{10 * kMiB, 6 * kMiB});
    good->use_pinned = true;
    pipeline.Submit({"bad", Priority::kNormal, 12, bad, results.Callback()});
    pipeline.Submit({"good", Priority::kNormal, 6, good, results.Callback()});
    ASSERT_TRUE(results.WaitFor(2));
    // Partitions still in flight drain; then only idle pinned buffers hold bytes.
    EXPECT_TRUE(WaitUntil([&] {
      auto s = pipeline.Status();
      return s.synthesizing == 0 && s.gpu_queue == 0 && s.finalizer_queue == 0 && g_live_data.load() == 0 &&
             s.pinned.leased_buffers == 0;
    }));
    const PipelineStatus s = pipeline.Status();
    EXPECT_EQ(s.reserved_bytes, s.pinned.idle_bytes);
    EXPECT_EQ(s.jobs_failed, 1u);
    EXPECT_EQ(s.jobs_completed, 1u);
    EXPECT_LE(s.peak_reserved_bytes, 100 * kMiB);
    EXPECT_GT(s.pinned.reuses, 0u);
  }
  ASSERT_EQ(results.by_id.at("bad").size(), 1u);  // exactly once
  const JobResult& r = results.by_id.at("bad")[0];
  EXPECT_EQ(r.outcome, JobOutcome::kFailed);
  EXPECT_NE(r.error.find("partition 3"), std::string::npos) << r.error;
  EXPECT_TRUE(r.proof.empty());
  EXPECT_EQ(results.by_id.at("good")[0].outcome, JobOutcome::kCompleted) << results.by_id.at("good")[0].error;
  EXPECT_EQ(budget.reserved(), pinned.Stats().idle_bytes);  // only idle pinned buffers, reusable
  const uint64_t idle = pinned.Stats().idle_bytes;
  EXPECT_EQ(pinned.Shrink(~uint64_t(0)), idle);
  EXPECT_EQ(budget.reserved(), 0u);
  EXPECT_EQ(g_live_data.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(AllStages, PipelineFailure,
                         ::testing::Values(FailAt::kSynth, FailAt::kGpu, FailAt::kFinish, FailAt::kVerify));

TEST(Pipeline, CancellationReleasesReservationsVisibleInStatus) {
  memory::Budget budget(100);
  Results results;
  Pipeline pipeline(FastConfig(nullptr, 4, 1), budget);
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{20, 10});
  work->block_until_cancelled = true;
  pipeline.Submit({"stuck", Priority::kNormal, 16, work, results.Callback()});
  ASSERT_TRUE(WaitUntil([&] { return work->synth_started.load() == 4; }));
  PipelineStatus s = pipeline.Status();
  EXPECT_EQ(s.reserved_bytes, 80u);  // 4 partitions in synthesis, 20 bytes each
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(std::count_if(s.jobs[0].partitions.begin(), s.jobs[0].partitions.end(),
                          [](auto& p) { return p.stage == PartitionStage::kSynthesizing; }),
            4);
  const nlohmann::json js = PipelineStatusJson(s);
  EXPECT_EQ(js["memory"]["reserved_bytes"], 80);
  EXPECT_EQ(js["pipelines"][0]["job_id"], "stuck");
  EXPECT_EQ(js["pipelines"][0]["partitions"][0]["state"], "synthesizing");
  EXPECT_EQ(js["synthesis"]["active"], 4);
  EXPECT_TRUE(pipeline.Cancel("stuck"));
  EXPECT_FALSE(pipeline.Cancel("stuck"));  // no longer active
  ASSERT_TRUE(results.WaitFor(1));
  EXPECT_EQ(results.by_id.at("stuck")[0].outcome, JobOutcome::kCancelled);
  EXPECT_TRUE(WaitUntil([&] { return pipeline.Status().reserved_bytes == 0; }));
  s = pipeline.Status();
  EXPECT_EQ(PipelineStatusJson(s)["memory"]["reserved_bytes"], 0);  // what /status shows after the cancel
  EXPECT_EQ(s.jobs_cancelled, 1u);
  EXPECT_TRUE(s.jobs.empty());
  EXPECT_EQ(s.synthesis_queue, 0u);
  EXPECT_EQ(results.by_id.at("stuck").size(), 1u);
  // The pipeline still works afterwards.
  pipeline.Submit(
      {"after", Priority::kNormal, 3, std::make_shared<FakeWork>(2, PartitionBytes{20, 10}), results.Callback()});
  ASSERT_TRUE(results.WaitFor(2));
  EXPECT_EQ(results.by_id.at("after")[0].outcome, JobOutcome::kCompleted);
}

// on_released: after on_done, once every stage call has returned and the
// job's reservations and work are gone (the daemon answers its waiters then).
TEST(Pipeline, OnReleasedComesAfterOnDoneWithNothingHeld) {
  memory::Budget budget(100);
  Results results;
  Pipeline pipeline(FastConfig(nullptr, 4, 1), budget);
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{20, 10});
  work->block_until_cancelled = true;
  FakeWork* raw = work.get();
  std::weak_ptr<FakeWork> weak = work;
  std::promise<std::pair<uint64_t, bool>> released;  // reserved bytes, on_done seen
  JobRequest r{"stuck", Priority::kNormal, 8, std::move(work), results.Callback()};
  r.on_released = [&] {
    bool done_seen;
    {
      std::lock_guard lock(results.mu);
      done_seen = results.by_id.count("stuck") == 1;
    }
    EXPECT_TRUE(weak.expired());  // the work (vanilla proofs, parameter lease in the daemon) is gone
    released.set_value({budget.Stats().reserved, done_seen});
  };
  pipeline.Submit(std::move(r));
  ASSERT_TRUE(WaitUntil([&] { return raw->synth_started.load() == 4; }));
  EXPECT_TRUE(pipeline.Cancel("stuck"));
  auto f = released.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  const auto [reserved, done_seen] = f.get();
  EXPECT_EQ(reserved, 0u);
  EXPECT_TRUE(done_seen);
}

// A token set without Cancel (a stage notices it first) still ends the job.
TEST(Pipeline, ATokenCancelledOutsideTheCallEndsTheJob) {
  memory::Budget budget(100);
  Results results;
  Pipeline pipeline(FastConfig(nullptr, 1, 1), budget);
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{20, 10});
  work->block_until_cancelled = true;
  JobRequest r{"t", Priority::kNormal, 6, work, results.Callback()};
  CancelToken token = r.cancel;
  pipeline.Submit(std::move(r));
  ASSERT_TRUE(WaitUntil([&] { return work->synth_started.load() == 1; }));
  token.Cancel();
  ASSERT_TRUE(results.WaitFor(1));
  EXPECT_EQ(results.by_id.at("t")[0].outcome, JobOutcome::kCancelled);
  EXPECT_TRUE(WaitUntil([&] { return pipeline.Status().reserved_bytes == 0; }));
  EXPECT_EQ(work->synth_started.load(), 1);  // the queued partitions were dropped, not run
}

TEST(Pipeline, BudgetBackpressureNeverExceedsTheBudget) {
  memory::Budget budget(25);  // two partitions of 10 at a time
  Log log;
  Results results;
  {
    Pipeline pipeline(FastConfig(&log, 8, 2), budget);
    for (int j = 0; j < 3; ++j) {
      auto w = std::make_shared<FakeWork>(uint8_t(j), PartitionBytes{10, 8});
      // Long next to the 1 ms resolution of the TIMELINE lines and a thread's
      // wake-up, so that those are a small part of the GPU span.
      w->gpu = 40ms;
      pipeline.Submit({"j" + std::to_string(j), Priority::kNormal, 6, w, results.Callback()});
    }
    ASSERT_TRUE(results.WaitFor(3));
  }
  EXPECT_LE(budget.peak(), 25u);
  EXPECT_GE(budget.Stats().waited_grants, 1u);  // the budget really held dispatches back
  // From the TIMELINE lines alone: a GPU worker idle while a synthesized
  // partition waited only for the moment a pickup takes. The lines carry
  // whole milliseconds, so each hand-off (GPU_END, then GPU_PICKUP and
  // GPU_START) can show up to 1 ms of idle that was not there: 1 ms per GPU
  // item is allowed for that, and 20% of the span for a descheduled thread.
  // A worker that really idles while work waits loses a GPU item's time
  // (40 ms) or more per miss, which this bound (about 90 of 360 ms) catches.
  std::stringstream lines;
  {
    std::lock_guard lock(log.mu);
    for (auto& l : log.lines) lines << l << '\n';
  }
  const TimelineData d = ReadTimeline(lines);
  EXPECT_EQ(d.gpu.size(), 18u);
  std::printf("idle while pending %.0f ms of %.0f ms GPU span\n", d.idle_while_pending_ms, d.gpu_span_ms);
  EXPECT_LE(d.idle_while_pending_ms, 0.2 * d.gpu_span_ms + 1.0 * double(d.gpu.size()));
  for (auto& [id, v] : results.by_id) EXPECT_EQ(v.at(0).outcome, JobOutcome::kCompleted) << id;
}

// A budget that holds two partitions: with pinned_abc the dispatcher hands
// idle pinned buffers on, so page-locked memory is mostly reused instead of
// freed and page-locked again; without it the evictor frees and synthesis
// reallocates every time. This test asserted "never freed" and failed about
// one run in four on a busy machine (CI, 2026-12-02): a dispatcher stopped
// because a buffer came back still ran the budget's evictor when another
// partition's release woke it, freeing that buffer. A stopped acquirer no
// longer evicts (memory/budget.cpp): 40 of 40 runs then had 2 allocations
// and 0 frees. What is asserted is what the design promises whatever the
// timing: buffers are reused, and far fewer are allocated than without.
TEST(Pipeline, FullBudgetReusesPinnedBuffers) {
  constexpr uint64_t kMiB = uint64_t(1) << 20;
  uint64_t allocations[2] = {0, 0};
  for (bool pinned_abc : {true, false}) {
    memory::Budget budget(2 * 10 * kMiB + kMiB);
    memory::PinnedPool pinned(budget);
    Results results;
    {
      Pipeline pipeline(FastConfig(nullptr, 4, 1), budget, &pinned);
      auto work = std::make_shared<FakeWork>(1, PartitionBytes{10 * kMiB, 8 * kMiB, pinned_abc});
      work->use_pinned = true;
      work->gpu = 20ms;  // partitions overlap on the GPU's time, not on thread scheduling
      pipeline.Submit({"p", Priority::kNormal, 12, work, results.Callback()});
      ASSERT_TRUE(results.WaitFor(1));
      EXPECT_EQ(results.by_id.at("p")[0].outcome, JobOutcome::kCompleted) << results.by_id.at("p")[0].error;
    }
    const memory::PinnedPoolStats st = pinned.Stats();
    SCOPED_TRACE(pinned_abc ? "pinned_abc" : "plain");
    std::printf("%s: %llu allocations, %llu frees, %llu reuses\n", pinned_abc ? "pinned_abc" : "plain",
                (unsigned long long)st.allocations, (unsigned long long)st.frees, (unsigned long long)st.reuses);
    EXPECT_LE(budget.peak(), 21 * kMiB);
    allocations[pinned_abc ? 0 : 1] = st.allocations;
    if (pinned_abc) {
      EXPECT_GE(st.reuses, 1u);
    } else {
      EXPECT_GT(st.frees, 0u);  // the churn pinned_abc avoids
    }
  }
  // 2 against 12 in 40 of 40 runs (2-8 before the stopped acquirer stopped evicting).
  EXPECT_LT(allocations[0], allocations[1]) << "handing idle buffers on must save page-locked allocations";
}

TEST(Pipeline, DefaultPacerCalibratesAndRuns) {
  memory::Budget budget(1000);
  Log log;
  Results results;
  PipelineConfig c;          // the daemon's defaults, bootstrap spacing aside
  c.synthesis_threads = 12;  // more than the bootstrap's 8
  c.gpu_workers_per_device = 2;
  c.pacer.bootstrap_spacing_s = 0;
  c.timeline = log.Sink();
  PacerState end;
  {
    Pipeline pipeline(c, budget);
    pipeline.Submit(
        {"boot", Priority::kNormal, 20, std::make_shared<FakeWork>(1, PartitionBytes{10, 5}), results.Callback()});
    ASSERT_TRUE(results.WaitFor(1));
    end = pipeline.Status().pacer;
  }
  EXPECT_EQ(results.by_id.at("boot")[0].outcome, JobOutcome::kCompleted);
  EXPECT_FALSE(end.bootstrap);
  EXPECT_TRUE(end.calibrated);
  EXPECT_EQ(end.dispatched, 20u);
  EXPECT_EQ(end.completions, 20u);
  EXPECT_NEAR(end.gpu_time_s, 0.002, 0.05);
  EXPECT_EQ(log.Events("SYNTH_START").size(), 20u);
}

// Before any GPU time is measured, the default pacer fills every free
// synthesis thread (issue 16), not just the bootstrap's 8, and the budget
// still bounds it. Synthesis blocks until the job is cancelled, so nothing
// reaches a GPU and no measurement can come: what starts is the pacer's start.
TEST(Pipeline, DefaultPacerFillsSynthesisBeforeAnyGpuTimeWithinTheBudget) {
  struct Case {
    uint64_t budget_bytes;
    int expected;  // partitions started: 12 threads, or 10 partitions of 10 bytes in a 100-byte budget
  };
  for (const Case k : {Case{1000, 12}, Case{100, 10}}) {
    SCOPED_TRACE("budget " + std::to_string(k.budget_bytes));
    memory::Budget budget(k.budget_bytes);
    Results results;
    PipelineConfig c;  // the daemon's defaults (target 8), bootstrap spacing aside
    c.synthesis_threads = 12;
    c.gpu_workers_per_device = 2;
    c.pacer.bootstrap_spacing_s = 0;
    Pipeline pipeline(c, budget);
    auto work = std::make_shared<FakeWork>(1, PartitionBytes{10, 5});
    work->block_until_cancelled = true;
    pipeline.Submit({"start", Priority::kNormal, 20, work, results.Callback()});
    // The old start stopped at 8 and waited for a GPU time forever.
    ASSERT_TRUE(WaitUntil([&] { return work->synth_started.load() >= k.expected; }))
        << work->synth_started.load() << " started";
    std::this_thread::sleep_for(100ms);  // time for any dispatch past threads or budget
    EXPECT_EQ(work->synth_started.load(), k.expected);
    const PipelineStatus s = pipeline.Status();
    EXPECT_TRUE(s.pacer.bootstrap);  // still uncalibrated
    EXPECT_LE(s.reserved_bytes, k.budget_bytes);
    EXPECT_TRUE(pipeline.Cancel("start"));
    ASSERT_TRUE(results.WaitFor(1));
  }
}

TEST(Pipeline, NotificationsArriveInStateOrderAndOnDoneLast) {
  memory::Budget budget(1000);
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> seen;  // per job: "started", "p:stage", "done"
  Results results;
  {
    Pipeline pipeline(FastConfig(nullptr, 3, 2), budget);
    for (int j = 0; j < 3; ++j) {
      const std::string id = "n" + std::to_string(j);
      JobRequest r{id, Priority::kNormal, 4, std::make_shared<FakeWork>(uint8_t(j), PartitionBytes{10, 5}), {}};
      r.on_started = [&, id] {
        std::lock_guard lock(mu);
        seen[id].push_back("started");
      };
      r.on_stage = [&, id](uint32_t p, const PartitionStatus& st) {
        std::lock_guard lock(mu);
        seen[id].push_back(std::to_string(p) + ":" + std::string(PartitionStageName(st.stage)));
      };
      auto done = results.Callback();
      r.on_done = [&, id, done](JobResult res) {
        {
          std::lock_guard lock(mu);
          seen[id].push_back("done");
        }
        done(std::move(res));
      };
      r.kind = "TEST_KIND";
      pipeline.Submit(std::move(r));
    }
    ASSERT_TRUE(results.WaitFor(3));
  }
  const std::vector<std::string> stages = {"dispatched", "synthesizing", "synth_done", "gpu", "finalizing", "done"};
  for (auto& [id, events] : seen) {
    SCOPED_TRACE(id);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.front(), "started");
    EXPECT_EQ(events.back(), "done");
    for (int p = 0; p < 4; ++p) {
      std::vector<std::string> mine;
      for (auto& e : events)
        if (e.rfind(std::to_string(p) + ":", 0) == 0) mine.push_back(e.substr(2));
      EXPECT_EQ(mine, stages) << "partition " << p;
    }
  }
}

TEST(Pipeline, QueuePositionAndRemoveQueued) {
  memory::Budget budget(1000);
  Results results;
  std::promise<void> open;
  Pipeline pipeline(FastConfig(nullptr, 1, 1), budget);
  auto plug = std::make_shared<FakeWork>(9, PartitionBytes{1, 0});
  plug->gate = open.get_future().share();
  pipeline.Submit({"plug", Priority::kNormal, 1, plug, results.Callback()});
  ASSERT_TRUE(WaitUntil([&] { return plug->synth_started.load() == 1; }));
  auto work = [] { return std::make_shared<FakeWork>(1, PartitionBytes{1, 0}); };
  pipeline.Submit({"a", Priority::kNormal, 2, work(), results.Callback()});
  pipeline.Submit({"b", Priority::kNormal, 2, work(), results.Callback()});
  pipeline.Submit({"c", Priority::kHigh, 2, work(), results.Callback()});
  EXPECT_EQ(pipeline.QueuePosition("plug"), std::nullopt);  // started
  EXPECT_EQ(pipeline.QueuePosition("c"), 0u);
  EXPECT_EQ(pipeline.QueuePosition("a"), 1u);
  EXPECT_EQ(pipeline.QueuePosition("b"), 2u);
  EXPECT_EQ(pipeline.QueuePosition("nope"), std::nullopt);
  EXPECT_TRUE(pipeline.RemoveQueued("a"));
  EXPECT_FALSE(pipeline.RemoveQueued("a"));
  EXPECT_FALSE(pipeline.RemoveQueued("plug"));  // started: cancel it instead
  EXPECT_EQ(pipeline.QueuePosition("b"), 1u);
  open.set_value();
  ASSERT_TRUE(results.WaitFor(3));
  EXPECT_EQ(results.by_id.count("a"), 0u);  // taken back: no on_done
  for (const char* id : {"plug", "b", "c"}) EXPECT_EQ(results.by_id.at(id).at(0).outcome, JobOutcome::kCompleted);
}

TEST(Pipeline, ShutdownDrainsStartedJobsAndCancelsTheRest) {
  memory::Budget budget(1000);
  Results results;
  Pipeline pipeline(FastConfig(nullptr, 1, 1), budget);
  auto slowish = std::make_shared<FakeWork>(1, PartitionBytes{1, 0});
  slowish->synth = 20ms;
  pipeline.Submit({"started", Priority::kNormal, 2, slowish, results.Callback()});
  ASSERT_TRUE(WaitUntil([&] { return slowish->synth_started.load() == 1; }));
  pipeline.Submit(
      {"queued", Priority::kLow, 2, std::make_shared<FakeWork>(2, PartitionBytes{1, 0}), results.Callback()});
  EXPECT_TRUE(pipeline.Shutdown(std::chrono::steady_clock::now() + 5s));
  EXPECT_EQ(results.by_id.at("started").at(0).outcome, JobOutcome::kCompleted);
  EXPECT_EQ(results.by_id.at("queued").at(0).outcome, JobOutcome::kCancelled);
  EXPECT_THROW(pipeline.Submit({"late", Priority::kNormal, 1, slowish, {}}), std::runtime_error);
  EXPECT_TRUE(pipeline.Shutdown(std::chrono::steady_clock::now()));  // same answer again
  EXPECT_EQ(budget.reserved(), 0u);
}

TEST(Pipeline, ShutdownSaysWhenAWorkCallDoesNotReturn) {
  memory::Budget budget(1000);
  Results results;
  std::promise<void> open;
  auto pipeline = std::make_unique<Pipeline>(FastConfig(nullptr, 1, 1), budget);
  auto stuck = std::make_shared<FakeWork>(1, PartitionBytes{1, 0});
  stuck->gate = open.get_future().share();  // ignores the cancel token, like an engine call
  pipeline->Submit({"stuck", Priority::kNormal, 1, stuck, results.Callback()});
  ASSERT_TRUE(WaitUntil([&] { return stuck->synth_started.load() == 1; }));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(pipeline->Shutdown(t0 + 100ms));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);  // deadline + about a second, not forever
  EXPECT_EQ(results.by_id.at("stuck").at(0).outcome, JobOutcome::kCancelled);
  open.set_value();  // the call returns: now the pipeline can be destroyed
  pipeline.reset();
  EXPECT_EQ(budget.reserved(), 0u);
}

TEST(Pipeline, SubmissionChecks) {
  memory::Budget budget(100);
  Pipeline pipeline(FastConfig(nullptr), budget);
  auto work = std::make_shared<FakeWork>(1, PartitionBytes{101, 1});
  EXPECT_THROW(pipeline.Submit({"huge", Priority::kNormal, 2, work, {}}), memory::BudgetExceededError);
  EXPECT_THROW(pipeline.Submit({"", Priority::kNormal, 2, std::make_shared<FakeWork>(1, PartitionBytes{1, 0}), {}}),
               std::invalid_argument);
  EXPECT_THROW(pipeline.Submit({"x", Priority::kNormal, 0, std::make_shared<FakeWork>(1, PartitionBytes{1, 0}), {}}),
               std::invalid_argument);
  EXPECT_THROW(pipeline.Submit({"x", Priority::kNormal, 1, nullptr, {}}), std::invalid_argument);
  EXPECT_THROW(pipeline.Submit({"x", Priority::kNormal, 1, std::make_shared<FakeWork>(1, PartitionBytes{5, 6}), {}}),
               std::invalid_argument);
  auto slow = std::make_shared<FakeWork>(1, PartitionBytes{1, 0});
  slow->block_until_cancelled = true;
  pipeline.Submit({"dup", Priority::kNormal, 1, slow, {}});
  EXPECT_THROW(pipeline.Submit({"dup", Priority::kNormal, 1, slow, {}}), std::invalid_argument);
  EXPECT_EQ(pipeline.Status().jobs.size(), 1u);
}

TEST(Pipeline, ShutdownCancelsActiveJobsOnce) {
  memory::Budget budget(100);
  Results results;
  {
    Pipeline pipeline(FastConfig(nullptr, 2, 1), budget);
    for (int j = 0; j < 3; ++j) {
      auto w = std::make_shared<FakeWork>(uint8_t(j), PartitionBytes{5, 1});
      w->block_until_cancelled = true;
      pipeline.Submit({"s" + std::to_string(j), Priority::kNormal, 4, w, results.Callback()});
    }
  }
  ASSERT_EQ(results.by_id.size(), 3u);
  for (auto& [id, v] : results.by_id) {
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].outcome, JobOutcome::kCancelled);
  }
  EXPECT_EQ(budget.reserved(), 0u);
}

TEST(Pipeline, CpuBackendWorkersWhenThereIsNoGpu) {
  memory::Budget budget(100);
  Log log;
  Results results;
  PipelineConfig c = FastConfig(&log, 2, 3);
  c.gpu_devices.clear();
  {
    Pipeline pipeline(c, budget);
    EXPECT_EQ(pipeline.Status().gpu_workers.size(), 3u);
    EXPECT_EQ(pipeline.Status().gpu_workers[0].device, -1);
    pipeline.Submit(
        {"cpu", Priority::kNormal, 4, std::make_shared<FakeWork>(1, PartitionBytes{5, 1}), results.Callback()});
    ASSERT_TRUE(results.WaitFor(1));
  }
  EXPECT_EQ(results.by_id.at("cpu")[0].outcome, JobOutcome::kCompleted);
}

}  // namespace
}  // namespace cuzk::scheduler
