// ProofRunner with real 2 KiB SnapDeals jobs on CPU-backend workers:
// a merged proof that verifies (and nothing held afterwards), priority order
// of queued jobs with QueuePosition and RemoveQueued, a cancelled job
// (kCancelled, every reservation released), a corrupt partition (the job
// fails once, its siblings are skipped), a job larger than the budget
// (refused at once, nothing queued).
#include "prover/partition_work.hpp"
#include "prover/proof_runner.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snarkjs/wtns_file.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "prover/srs_registry.hpp"
#include "scheduler/timeline.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::prover {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const filecoin::SectorShape& Shape() {
  static const filecoin::SectorShape shape = filecoin::SectorShape::FromSectorSize(2048);
  return shape;
}

std::string ParamDir() {
  const char* env = std::getenv("CUZK_PIPELINE_TEST_PARAMS");
  return env && *env ? env : CUZK_PIPELINE_PARAM_CACHE;
}

std::string R1csDir() {
  const char* env = std::getenv("CUZK_PIPELINE_TEST_R1CS");
  return env && *env ? env : CUZK_PIPELINE_R1CS_FIXTURE;
}

fs::path ParamFile(const std::string& ext) {
  return fs::path(ParamDir()) / (snapdeals::EmptySectorUpdateParamsStem(Shape()) + ext);
}

// The daemon fixture's parameters, or a local setup written once (under a
// lock, through a scratch directory, so a concurrent test never reads a
// partial file).
void EnsureParams() {
  if (fs::exists(ParamFile(".params")) && fs::exists(ParamFile(".vk"))) return;
  fs::create_directories(ParamDir());
  const std::string lock_path = ParamDir() + "/.pipeline-test-setup.lock";
  const int fd = ::open(lock_path.c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0) << lock_path;
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  if (!fs::exists(ParamFile(".params")) || !fs::exists(ParamFile(".vk"))) {
    std::fprintf(stderr, "no 2 KiB parameters in %s: local setup (minutes on one core)\n", ParamDir().c_str());
    const r1cs::CompiledCircuit circuit = snapdeals::CompileEmptySectorUpdate(Shape());
    const groth16::ProvingKey pk = groth16::GenerateParameters(circuit);
    const fs::path tmp = fs::path(ParamDir()) / ("pipeline-setup." + std::to_string(::getpid()));
    fs::create_directories(tmp);
    const fs::path params = tmp / ParamFile(".params").filename(), vk = tmp / ParamFile(".vk").filename();
    groth16::WriteParams(pk, params.string());
    groth16::WriteVerifyingKey(pk.vk, vk.string());
    fs::rename(params, ParamFile(".params"));
    fs::rename(vk, ParamFile(".vk"));
    fs::remove_all(tmp);
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

const snapdeals::TestSector& Sector() {
  static const snapdeals::TestSector s = [] {
    snapdeals::TestSectorOptions o;
    o.sector_bytes = 2048;
    o.seed = 1;
    return snapdeals::GenerateTestSector(o);
  }();
  return s;
}

// One registry per process: the 655 MB parameter set is decoded once.
SrsRegistry& Srs() {
  static SrsRegistry srs(ParamDir(), 0);
  return srs;
}

uint32_t SrsRefCount() {
  for (const SrsInfo& i : Srs().List())
    if (i.circuit_id == "snap-2k") return i.ref_count;
  return 0;
}

std::shared_ptr<ProofJob> MakeJob(const std::string& id, int priority, unsigned copies = 1) {
  auto job = std::make_shared<ProofJob>();
  job->id = id;
  job->kind = JobKind::kSnapDeals;
  job->priority = static_cast<Priority>(priority);
  job->submitted = Clock::now();
  job->shape = Shape();
  job->commitments = Sector().commitments;
  for (unsigned i = 0; i < copies; ++i) job->partitions.push_back(Sector().partition_proofs.at(0));
  job->params = Srs().Acquire("snap-2k");
  return job;
}

// Everything the runner tells the observer, checked for the contract as it arrives.
class Recorder : public JobObserver {
 public:
  struct Job {
    std::vector<std::pair<unsigned, PartitionStage>> stages;
    std::map<unsigned, PartitionStatus> times;  // the last status of each partition
    unsigned started = 0, finished = 0;
    bool late_callback = false;  // anything after OnJobFinished
    std::optional<JobResult> outcome;
    uint32_t srs_refs_at_finish = ~0u;
  };

  void OnJobStarted(const std::string& id) override {
    std::lock_guard lock(mu_);
    Job& j = jobs_[id];
    j.late_callback |= j.finished > 0;
    ++j.started;
    start_order_.push_back(id);
    cv_.notify_all();
  }
  void OnPartitionStage(const std::string& id, uint32_t p, const PartitionStatus& status) override {
    std::lock_guard lock(mu_);
    Job& j = jobs_[id];
    j.late_callback |= j.finished > 0;
    j.stages.emplace_back(p, status.stage);
    j.times[p] = status;
    cv_.notify_all();
  }
  void OnJobFinished(const std::string& id, JobResult outcome) override {
    const uint32_t refs = SrsRefCount();  // the runner must have dropped its lease by now
    std::lock_guard lock(mu_);
    Job& j = jobs_[id];
    ++j.finished;
    j.outcome = std::move(outcome);
    j.srs_refs_at_finish = refs;
    cv_.notify_all();
  }

  Job Get(const std::string& id) {
    std::lock_guard lock(mu_);
    return jobs_[id];
  }
  // 300 s (times CUZK_TEST_TIME_SCALE): a parameter load and a proof, or a hang.
  bool WaitFinished(const std::string& id, std::chrono::seconds timeout = test::Scaled(300s)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return jobs_[id].finished > 0; });
  }
  bool WaitStarted(const std::string& id, std::chrono::seconds timeout = test::Scaled(300s)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return jobs_[id].started > 0; });
  }
  bool WaitStage(const std::string& id, PartitionStage stage, std::chrono::seconds timeout = test::Scaled(300s)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      const auto& s = jobs_[id].stages;
      return std::any_of(s.begin(), s.end(), [&](auto& e) { return e.second == stage; });
    });
  }
  std::vector<std::string> StartOrder() {
    std::lock_guard lock(mu_);
    return start_order_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Job> jobs_;
  std::vector<std::string> start_order_;
};

struct Lines {
  std::mutex mu;
  std::vector<std::string> lines;
  scheduler::TimelineSink Sink() {
    return [this](std::string_view l) {
      std::lock_guard lock(mu);
      lines.emplace_back(l);
    };
  }
  size_t Count(const std::string& event) {
    std::lock_guard lock(mu);
    size_t n = 0;
    for (auto& l : lines)
      if (auto e = scheduler::ParseTimelineLine(l); e && e->event == event) ++n;
    return n;
  }
};

RunnerOptions CpuOptions(Lines* lines, uint64_t budget = 8ull << 30) {
  RunnerOptions o;
  o.synthesis_threads = 1;
  o.engine_threads = 0;
  o.cpu_workers = true;
  o.cpu_backend_workers = 1;
  o.budget_bytes = budget;
  if (lines) o.timeline = lines->Sink();
  return o;
}

std::vector<PartitionStage> StagesOf(const Recorder::Job& j, unsigned p) {
  std::vector<PartitionStage> out;
  for (auto& [k, s] : j.stages)
    if (k == p) out.push_back(s);
  return out;
}

class PipelineRunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { EnsureParams(); }
  void SetUp() override {
    if (!fs::exists(ParamFile(".params"))) GTEST_SKIP() << "no parameters in " << ParamDir();
  }
};

TEST_F(PipelineRunnerTest, ProvesAMergedProofThatVerifiesAndHoldsNothingAfterwards) {
  // Whatever this machine has: every CUDA device in a CUDA build on a GPU
  // host (one worker each), CPU-backend workers otherwise.
  Recorder rec;
  Lines lines;
  RunnerOptions o = CpuOptions(&lines);
  o.cpu_workers = false;
  o.workers_per_device = 1;
  o.pinned_abc_on_cpu_workers = true;  // a/b/c in pool buffers also without a GPU
  o.witness_only = false;              // (the witness-only path has its own test)
  auto runner = std::make_unique<ProofRunner>(o, &rec);
  std::printf("proving on %s\n", runner->devices().empty()
                                     ? "CPU-backend workers"
                                     : (std::to_string(runner->devices().size()) + " GPU(s)").c_str());
  runner->Enqueue(MakeJob("good", 2));  // the runner holds the only reference now
  ASSERT_TRUE(rec.WaitFinished("good"));
  const Recorder::Job j = rec.Get("good");
  ASSERT_EQ(j.outcome->outcome, JobOutcome::kCompleted) << j.outcome->error;
  EXPECT_EQ(j.finished, 1u);
  EXPECT_EQ(j.started, 1u);
  EXPECT_FALSE(j.late_callback);
  EXPECT_EQ(j.srs_refs_at_finish, 0u) << "the parameter lease was still held when OnJobFinished came";

  // Verified here with the .vk from disk, independently of the runner's own check.
  ASSERT_EQ(j.outcome->proof.size(), Shape().partitions * groth16::kProofBytes);
  const auto pvk = groth16::PrepareVerifyingKey(groth16::ReadVerifyingKey(ParamFile(".vk").string()));
  const auto proofs = groth16::DecodeProofs(j.outcome->proof);
  ASSERT_TRUE(proofs.has_value());
  for (unsigned k = 0; k < Shape().partitions; ++k) {
    const auto inputs = snapdeals::PartitionPublicInputs(Shape(), k, Sector().commitments).AsArray();
    EXPECT_TRUE(groth16::Verify(pvk, (*proofs)[k], inputs)) << "partition " << k;
    EXPECT_FALSE(groth16::Verify(pvk, (*proofs)[k], snapdeals::PartitionPublicInputs(Shape(), k, {}).AsArray()));
  }

  EXPECT_EQ(StagesOf(j, 0), (std::vector<PartitionStage>{PartitionStage::kDispatched, PartitionStage::kSynthesizing,
                                                         PartitionStage::kGpuQueued, PartitionStage::kGpu,
                                                         PartitionStage::kFinalizing, PartitionStage::kDone}));
  ASSERT_EQ(j.times.count(0), 1u);
  const JobTimings& t = j.outcome->timings;
  EXPECT_GT(t.synthesis_ms, 0);
  EXPECT_GT(t.gpu_compute_ms, 0);
  EXPECT_GT(t.verify_ms, 0);
  EXPECT_GE(t.finalize_ms, t.verify_ms);
  EXPECT_GE(t.queue_wait_ms, 0);
  EXPECT_GE(t.total_ms, t.queue_wait_ms + t.srs_load_ms + t.synthesis_ms + t.gpu_compute_ms + t.finalize_ms - 1);
  EXPECT_DOUBLE_EQ(j.times.at(0).synth_ms, t.synthesis_ms);
  EXPECT_DOUBLE_EQ(j.times.at(0).srs_load_ms, t.srs_load_ms);
  std::printf("2 KiB job: total %.0f ms (queue %.0f, srs load %.0f, synthesis %.0f, GPU start %.0f, finalize %.0f)\n",
              t.total_ms, t.queue_wait_ms, t.srs_load_ms, t.synthesis_ms, t.gpu_compute_ms, t.finalize_ms);

  // a/b/c went through the pinned pool: one buffer per partition (2 KiB: 1)
  // of a/b/c plus the z copy, (3 m + n) 32 bytes rounded up to 4 KiB, back
  // in the pool now and still charged to the budget as the only reserved
  // bytes (kept for the next partition).
  const scheduler::PipelineStatus s = runner->PipelineStatus();
  const snapdeals::CircuitCounts counts = snapdeals::CountEmptySectorUpdate(Shape());
  const uint64_t abc_bytes = ((3ull * (1u << 21) + counts.inputs + counts.aux) * 32 + 4095) / 4096 * 4096;
  ASSERT_TRUE(s.has_pinned_pool);
  EXPECT_EQ(s.pinned.allocations, 1u);
  EXPECT_EQ(s.pinned.leased_buffers, 0u);
  EXPECT_EQ(s.pinned.idle_bytes, abc_bytes);
  std::printf("pinned pool after the job: %llu idle bytes in %llu buffer(s), %llu page-locked allocation(s)\n",
              (unsigned long long)s.pinned.idle_bytes, (unsigned long long)s.pinned.idle_buffers,
              (unsigned long long)s.pinned.page_locked_allocations);
  EXPECT_EQ(s.reserved_bytes, s.pinned.idle_bytes);
  EXPECT_GT(s.peak_reserved_bytes, abc_bytes);  // at least a/b/c of the 2^21 domain
  EXPECT_TRUE(s.jobs.empty());
  EXPECT_EQ(s.jobs_completed, 1u);
  EXPECT_TRUE(runner->Counts().by_kind.empty() || runner->Counts().by_kind[JobKind::kSnapDeals].pending == 0);
  for (const char* e : {"SYNTH_START", "SYNTH_END", "GPU_QUEUE", "GPU_PICKUP", "GPU_START", "GPU_END", "FIN_END"})
    EXPECT_EQ(lines.Count(e), 1u) << e;
  EXPECT_TRUE(runner->Shutdown(Clock::now() + 1s));
  EXPECT_THROW(runner->Enqueue(MakeJob("late", 2)), std::runtime_error);
}

// Witness-only synthesis (the GPU workers' default): no a/b/c on the host,
// the backend evaluates them (here the CpuBackend, the reference); the proof
// verifies and the partition's reservation holds no a/b/c bytes.
TEST_F(PipelineRunnerTest, WitnessOnlySynthesisProvesAVerifiedProof) {
  Recorder rec;
  RunnerOptions o = CpuOptions(nullptr);
  o.witness_only_on_cpu_workers = true;
  auto job = MakeJob("witness-only", 2);
  const scheduler::PartitionBytes bytes = EstimatePartitionBytes(*job, SynthesisForm::kWitness);
  EXPECT_EQ(bytes.abc, 0u);
  EXPECT_FALSE(bytes.pinned_abc);
  EXPECT_LT(bytes.total, EstimatePartitionBytes(*job, SynthesisForm::kAbcVectors).total / 2);
  auto runner = std::make_unique<ProofRunner>(o, &rec);
  runner->Enqueue(std::move(job));
  ASSERT_TRUE(rec.WaitFinished("witness-only"));
  const Recorder::Job j = rec.Get("witness-only");
  ASSERT_EQ(j.outcome->outcome, JobOutcome::kCompleted) << j.outcome->error;
  const auto pvk = groth16::PrepareVerifyingKey(groth16::ReadVerifyingKey(ParamFile(".vk").string()));
  const auto proofs = groth16::DecodeProofs(j.outcome->proof);
  ASSERT_TRUE(proofs.has_value());
  const auto inputs = snapdeals::PartitionPublicInputs(Shape(), 0, Sector().commitments).AsArray();
  EXPECT_TRUE(groth16::Verify(pvk, (*proofs)[0], inputs));
  EXPECT_LE(runner->PipelineStatus().peak_reserved_bytes, bytes.total);
  EXPECT_EQ(runner->PipelineStatus().reserved_bytes, 0u);
}

TEST_F(PipelineRunnerTest, QueuedJobsStartInPriorityOrderAndCanBeTakenBack) {
  Recorder rec;
  auto runner = std::make_unique<ProofRunner>(CpuOptions(nullptr), &rec);
  auto first = MakeJob("first", 2);
  runner->Enqueue(first);
  ASSERT_TRUE(rec.WaitStarted("first"));
  // One synthesis thread, busy with "first": these wait.
  auto low = MakeJob("low", 1), high = MakeJob("high", 3), gone = MakeJob("gone", 2);
  runner->Enqueue(low);
  runner->Enqueue(gone);
  runner->Enqueue(high);
  EXPECT_EQ(runner->QueuePosition("first"), std::nullopt);
  EXPECT_EQ(runner->QueuePosition("high"), 0u);
  EXPECT_EQ(runner->QueuePosition("gone"), 1u);
  EXPECT_EQ(runner->QueuePosition("low"), 2u);
  const RunnerCounts c = runner->Counts();
  EXPECT_EQ(c.by_kind.at(JobKind::kSnapDeals).pending, 3u);
  EXPECT_EQ(c.by_kind.at(JobKind::kSnapDeals).in_progress, 1u);
  EXPECT_TRUE(runner->RemoveQueued("gone"));    // taken back: no OnJobFinished
  EXPECT_FALSE(runner->RemoveQueued("first"));  // started
  EXPECT_EQ(runner->QueuePosition("low"), 1u);
  gone.reset();
  // Only their starting order matters here: each is cancelled once it started.
  EXPECT_TRUE(runner->Cancel("first"));
  ASSERT_TRUE(rec.WaitStarted("high"));
  EXPECT_TRUE(runner->Cancel("high"));
  ASSERT_TRUE(rec.WaitStarted("low"));
  EXPECT_TRUE(runner->Cancel("low"));
  for (const char* id : {"first", "high", "low"}) {
    ASSERT_TRUE(rec.WaitFinished(id)) << id;
    EXPECT_EQ(rec.Get(id).outcome->outcome, JobOutcome::kCancelled) << id;
    EXPECT_EQ(rec.Get(id).finished, 1u) << id;
  }
  EXPECT_EQ(rec.StartOrder(), (std::vector<std::string>{"first", "high", "low"}));
  EXPECT_EQ(rec.Get("gone").finished, 0u);
  EXPECT_EQ(rec.Get("gone").started, 0u);
  EXPECT_EQ(runner->PipelineStatus().reserved_bytes, 0u);
}

TEST_F(PipelineRunnerTest, CancelledJobFinishesCancelledAndReleasesItsReservations) {
  Recorder rec;
  auto runner = std::make_unique<ProofRunner>(CpuOptions(nullptr), &rec);
  auto job = MakeJob("doomed", 2);
  runner->Enqueue(job);
  // Inside Synthesize (parameter load or witness), not merely dispatched.
  const auto in_synthesis = [&] {
    const scheduler::PipelineStatus s = runner->PipelineStatus();
    return s.jobs.size() == 1 && s.jobs[0].partitions[0].stage == scheduler::PartitionStage::kSynthesizing;
  };
  const auto until = Clock::now() + 60s;
  while (!in_synthesis() && Clock::now() < until) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(in_synthesis());
  const scheduler::PipelineStatus during = runner->PipelineStatus();
  EXPECT_GT(during.reserved_bytes, 0u) << "a synthesizing partition holds its reservation";
  ASSERT_EQ(during.jobs.size(), 1u);
  EXPECT_TRUE(runner->Cancel("doomed"));  // what JobTracker::Cancel does for a started job
  ASSERT_TRUE(rec.WaitFinished("doomed"));
  const Recorder::Job j = rec.Get("doomed");
  EXPECT_EQ(j.outcome->outcome, JobOutcome::kCancelled);
  EXPECT_EQ(j.outcome->error, "cancelled");
  EXPECT_EQ(j.finished, 1u);
  EXPECT_FALSE(j.late_callback);
  const auto stages = StagesOf(j, 0);
  ASSERT_FALSE(stages.empty());
  EXPECT_EQ(stages.back(), PartitionStage::kSkipped);
  EXPECT_EQ(std::count(stages.begin(), stages.end(), PartitionStage::kDone), 0);
  // Reported once the pipeline let go: nothing is reserved any more.
  const scheduler::PipelineStatus after = runner->PipelineStatus();
  EXPECT_EQ(after.reserved_bytes, 0u);
  EXPECT_TRUE(after.jobs.empty());
  EXPECT_EQ(after.jobs_cancelled, 1u);
  job.reset();
  EXPECT_EQ(SrsRefCount(), 0u);
}

TEST_F(PipelineRunnerTest, CorruptPartitionFailsTheJobOnceAndItsSiblingsAreSkipped) {
  // A 2 KiB sector has one partition; the job carries three so that two
  // siblings queue behind the corrupt partition 0 (with one synthesis thread
  // they cannot start before it fails).
  Recorder rec;
  auto runner = std::make_unique<ProofRunner>(CpuOptions(nullptr), &rec);
  auto job = MakeJob("corrupt", 2, 3);
  job->partitions[0].challenge_proofs.at(0).proof_r_old.leaf[0] ^= 1;  // still canonical: a wrong leaf
  runner->Enqueue(job);
  ASSERT_TRUE(rec.WaitFinished("corrupt"));
  std::this_thread::sleep_for(300ms);  // anything late would show now
  const Recorder::Job j = rec.Get("corrupt");
  EXPECT_EQ(j.finished, 1u);
  EXPECT_FALSE(j.late_callback);
  ASSERT_EQ(j.outcome->outcome, JobOutcome::kFailed);
  EXPECT_NE(j.outcome->error.find("partition 0"), std::string::npos) << j.outcome->error;
  EXPECT_NE(j.outcome->error.find("synthesis"), std::string::npos) << j.outcome->error;
  EXPECT_EQ(StagesOf(j, 0).back(), PartitionStage::kFailed);
  for (unsigned k : {1u, 2u}) {
    EXPECT_EQ(StagesOf(j, k), std::vector<PartitionStage>{PartitionStage::kSkipped}) << "partition " << k;
  }
  const scheduler::PipelineStatus s = runner->PipelineStatus();
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.jobs_failed, 1u);
  EXPECT_TRUE(s.jobs.empty());
}

TEST_F(PipelineRunnerTest, JobLargerThanTheBudgetIsRefusedAtOnce) {
  Recorder rec;
  auto runner = std::make_unique<ProofRunner>(CpuOptions(nullptr, 64ull << 20), &rec);  // 64 MiB
  EXPECT_EQ(runner->budget_bytes(), 64ull << 20);
  auto job = MakeJob("huge", 2);
  const auto t0 = Clock::now();
  try {
    runner->Enqueue(job);
    FAIL() << "queued";
  } catch (const memory::BudgetExceededError& e) {
    EXPECT_NE(std::string(e.what()).find("job huge"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
    EXPECT_GT(e.requested(), e.capacity());
    EXPECT_TRUE(dynamic_cast<const JobExceedsBudgetError*>(&e));
  }
  EXPECT_LT(Clock::now() - t0, 5s);
  EXPECT_EQ(runner->QueuePosition("huge"), std::nullopt);
  EXPECT_TRUE(runner->Counts().by_kind.empty());
  EXPECT_TRUE(runner->PipelineStatus().jobs.empty());
  EXPECT_TRUE(runner->Shutdown(Clock::now()));
  EXPECT_EQ(rec.Get("huge").finished, 0u);
  EXPECT_EQ(rec.Get("huge").started, 0u);
}

TEST_F(PipelineRunnerTest, ShutdownCancelsQueuedJobsAndStopsStartedOnes) {
  Recorder rec;
  auto runner = std::make_unique<ProofRunner>(CpuOptions(nullptr), &rec);
  runner->Enqueue(MakeJob("running", 2));
  ASSERT_TRUE(rec.WaitStarted("running"));
  runner->Enqueue(MakeJob("waiting", 2));
  // No grace: the started job is cancelled at its next stage boundary. True
  // unless that stage (an engine call) outlasts the pipeline's second of slack.
  const bool stopped = runner->Shutdown(Clock::now());
  ASSERT_TRUE(rec.WaitFinished("waiting", 5s));
  EXPECT_EQ(rec.Get("waiting").outcome->outcome, JobOutcome::kCancelled);
  EXPECT_EQ(rec.Get("waiting").outcome->error, "cancelled: the daemon is shutting down");
  EXPECT_EQ(rec.Get("waiting").started, 0u);
  EXPECT_THROW(runner->Enqueue(MakeJob("late", 2)), std::runtime_error);
  if (stopped) {
    EXPECT_EQ(rec.Get("running").finished, 1u);
    EXPECT_EQ(runner->PipelineStatus().reserved_bytes, 0u);
  }
  runner.reset();  // joins a stage still inside an engine call; its job is reported then
  const Recorder::Job r = rec.Get("running");
  EXPECT_EQ(r.finished, 1u);
  EXPECT_EQ(r.outcome->outcome, JobOutcome::kCancelled);
  EXPECT_FALSE(r.late_callback);
  EXPECT_EQ(rec.Get("waiting").finished, 1u);
  EXPECT_EQ(SrsRefCount(), 0u);
}

// GENERIC_R1CS (circom + snarkjs zkey): the daemon tests' r1cs fixture
// (tests/daemon/make_r1cs_fixture.sh, needs Node.js), skipped without it.
TEST_F(PipelineRunnerTest, ParameterSetsAreChargedToTheBudgetAndEvictedWhenIdle) {
  // A registry of its own (the shared one may be loaded already).
  memory::Budget budget(64ull << 30);
  SrsRegistry srs(ParamDir(), 0);
  srs.AttachBudget(&budget, std::chrono::milliseconds(0));  // idle sets evictable at once
  {
    SrsRegistry::Lease lease = srs.Acquire("snap-2k");
    const std::shared_ptr<const LoadedParams> p = lease.Get(nullptr);
    std::printf("2 KiB parameter set: %llu resident bytes charged\n", (unsigned long long)p->resident_bytes);
    EXPECT_EQ(budget.reserved(), p->resident_bytes);
    // Held by a job: an acquire that needs the bytes does not evict it.
    EXPECT_FALSE(budget.TryAcquire(budget.capacity() - p->resident_bytes / 2).has_value());
    EXPECT_EQ(budget.reserved(), p->resident_bytes);
  }
  // Idle now: the same acquire evicts the set and is granted.
  const uint64_t charged = budget.reserved();
  ASSERT_GT(charged, 0u);
  std::optional<memory::Reservation> r = budget.TryAcquire(budget.capacity() - charged / 2);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(budget.Stats().evicted_bytes, charged);
  EXPECT_EQ(srs.ResidentBytes(), 0u);
  r.reset();
  EXPECT_EQ(budget.reserved(), 0u);

  // With a long minimum idle time an idle set stays; EvictSRS gives its charge back.
  memory::Budget budget2(64ull << 30);
  SrsRegistry srs2(ParamDir(), 0);
  srs2.AttachBudget(&budget2, std::chrono::hours(1));
  srs2.Preload("snap-2k");
  const uint64_t held = budget2.reserved();
  EXPECT_GT(held, 0u);
  EXPECT_FALSE(budget2.TryAcquire(budget2.capacity() - held / 2).has_value());
  EXPECT_EQ(srs2.ResidentBytes(), held);
  EXPECT_TRUE(srs2.Evict("snap-2k").was_loaded);
  EXPECT_EQ(budget2.reserved(), 0u);
}

TEST(PipelineRunnerGeneric, ProvesAGenericR1csJob) {
  const std::string dir = R1csDir();
  if (!fs::exists(dir + "/multi_public.zkey") || !fs::exists(dir + "/multi_public.wtns"))
    GTEST_SKIP() << "no r1cs fixture in " << dir << " (ctest -R daemon_r1cs_fixture makes it)";
  SrsRegistry srs(dir, 0);
  auto job = std::make_shared<ProofJob>();
  job->id = "generic";
  job->kind = JobKind::kGenericR1cs;
  job->submitted = Clock::now();
  job->witness.values = snarkjs::ReadWtns(dir + "/multi_public.wtns");
  job->params = srs.Acquire("multi_public");
  const std::shared_ptr<const LoadedParams> params = job->params.Get(nullptr);
  job->witness.num_inputs = params->circuit.num_inputs;  // what Prover::Submit checks and sets
  const std::vector<ff::Fr> publics = job->witness.PublicInputs();
  Recorder rec;
  auto runner = std::make_unique<ProofRunner>(CpuOptions(nullptr), &rec);
  runner->Enqueue(job);
  job.reset();
  ASSERT_TRUE(rec.WaitFinished("generic", test::Scaled(60s)));
  const Recorder::Job j = rec.Get("generic");
  ASSERT_EQ(j.outcome->outcome, JobOutcome::kCompleted) << j.outcome->error;
  const auto proof = groth16::DecodeProof(j.outcome->proof);
  ASSERT_TRUE(proof.has_value());
  EXPECT_TRUE(groth16::Verify(params->pvk, *proof, publics));
  std::vector<ff::Fr> wrong = publics;
  wrong.at(0) += ff::Fr::One();
  EXPECT_FALSE(groth16::Verify(params->pvk, *proof, wrong));
  EXPECT_EQ(runner->PipelineStatus().reserved_bytes, 0u);
}

}  // namespace
}  // namespace cuzk::prover
