// The job journal through real daemon processes (the 2 KiB fixture): a
// daemon SIGKILLed with jobs queued and running and restarted on the same
// daemon.state_dir completes every accepted job with a valid proof, none
// twice; a damaged store is moved aside and the daemon serves; a graceful
// restart queues the jobs the shutdown cancelled again.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace fs = std::filesystem;
namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cuzk-state-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

uint32_t InProgress(const v1::GetStatusResponse& st) {
  uint32_t n = 0;
  for (const auto& q : st.queues()) n += q.in_progress();
  return n;
}

std::string StateDirToml(const std::string& dir, const std::string& more = "") {
  return "state_dir = \"" + dir + "\"\n" + more + "[pipeline]\nsynthesis_concurrency = 1\n";
}

std::vector<std::string> CorruptFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("state.db.corrupt-", 0) == 0) out.push_back(e.path().string());
  return out;
}

// The must-show test of the journal: 4 jobs accepted, SIGKILL while one
// runs and others wait (one already done), restart on the same state_dir: every job completes
// with a valid proof and no job completes twice (a job's end is in the
// journal before its log line and before any client hears of it).
TEST(DaemonJournal, SigkillWithJobsQueuedAndRunningLosesNoneAndRunsNoneTwice) {
  TempDir state;
  const std::string toml = StateDirToml(state.path());
  std::vector<std::string> ids;
  std::string first_log;
  Clock::time_point submitted, killed;
  {
    DaemonProcess d(toml);
    auto stub = d.Stub();
    for (int i = 0; i < 3; ++i) ids.push_back(MustSubmit(*stub, FixtureSnapRequest("crash-" + std::to_string(i))));
    v1::SubmitProofRequest low = FixtureSnapRequest("");  // a generated id, and a priority to keep
    low.set_priority(v1::LOW);
    ids.push_back(MustSubmit(*stub, low));
    submitted = Clock::now();
    // One job done, one running, the others waiting: then the kill. (Each
    // proof costs ~5-10 s of CPU: 4 jobs keep this test near a minute on CI.)
    // "Done" is the log line, written once the end is in the journal.
    const seconds limit = Scaled(seconds(300));
    const auto until = Clock::now() + limit;
    for (;;) {
      if (d.Log().find(" completed:") != std::string::npos && InProgress(Status(*stub)) >= 1) break;
      ASSERT_LT(Clock::now(), until) << "no job completed in " << limit.count() << " s:\n" << d.Log();
      std::this_thread::sleep_for(milliseconds(20));
    }
    ASSERT_EQ(d.Signal(SIGKILL), 128 + SIGKILL);
    killed = Clock::now();
    first_log = d.Log();
  }
  DaemonProcess d(toml);
  auto stub = d.Stub();
  for (const std::string& id : ids) {
    const v1::AwaitProofResponse r = Await(*stub, id);
    ASSERT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED) << id << ": " << r.error_message() << "\n" << d.Log();
    EXPECT_TRUE(VerifyFixtureProof(r.proof())) << id;
  }
  const std::string second_log = d.Log();
  // Exactly one durable completion per job: kept from the journal (done
  // before the kill) or made after the restart, never both; and whatever the
  // first daemon reported done was kept, not made again.
  size_t completed_before = 0, completed_after = 0;
  for (const std::string& id : ids) {
    const size_t logged_before = Count(first_log, "job " + id + " completed:");
    const size_t kept = Count(second_log, "job " + id + " kept from the journal: completed");
    const size_t after = Count(second_log, "job " + id + " completed:");
    EXPECT_EQ(kept + after, 1u) << id << ": kept " << kept << ", completed again " << after << ":\n"
                                << first_log << "\n----\n"
                                << second_log;
    EXPECT_LE(logged_before, kept) << id << " was done before the kill and made again";
    completed_before += kept;
    completed_after += after;
    if (after == 1) {
      EXPECT_NE(second_log.find("job " + id + " queued again after a restart"), std::string::npos) << id;
      // Its times count from the original submission, before the kill.
      const v1::AwaitProofResponse r = Await(*stub, id, 10);
      EXPECT_GE(r.total_ms(), uint64_t(std::chrono::duration_cast<milliseconds>(killed - submitted).count())) << id;
    }
  }
  // Both paths were taken: a proof kept from before the kill, jobs run after it.
  EXPECT_GE(completed_before, 1u);
  EXPECT_GE(completed_after, 2u);  // the one killed while running and at least one that waited
  EXPECT_EQ(Status(*stub).total_proofs_completed(), completed_after);
  EXPECT_NE(
      second_log.find("job " + ids.back() + " queued again after a restart: SNAP_DEALS_UPDATE snap-2k priority LOW"),
      std::string::npos)
      << second_log;
  EXPECT_TRUE(CorruptFiles(state.path()).empty());
}

// Garbage in state.db: reported, renamed aside with its bytes intact, and a
// fresh store serves. Then a graceful restart: a finished job still answers
// and a job the shutdown cancelled is queued again.
TEST(DaemonJournal, DamagedStoreIsMovedAsideAndGracefulRestartsKeepJobs) {
  TempDir state;
  const std::string garbage = "not a database: " + std::string(3000, '\x7f');
  { std::ofstream(state.path() + "/state.db", std::ios::binary) << garbage; }
  const std::string toml = StateDirToml(state.path(), "shutdown_grace = \"0s\"\n");
  std::string cancelled_id, pending_id;
  {
    DaemonProcess d(toml);
    const std::vector<std::string> aside = CorruptFiles(state.path());
    ASSERT_EQ(aside.size(), 1u) << d.Log();
    EXPECT_EQ(ReadFile(aside[0]), garbage);
    EXPECT_NE(d.Log().find("is damaged"), std::string::npos) << d.Log();
    auto stub = d.Stub();
    cancelled_id = MustSubmit(*stub, FixtureSnapRequest("kept-cancelled"));
    v1::CancelProofRequest cancel;
    cancel.set_job_id(cancelled_id);
    v1::CancelProofResponse resp;
    ASSERT_TRUE(stub->CancelProof(Ctx().get(), cancel, &resp).ok());
    EXPECT_EQ(Await(*stub, cancelled_id).status(), v1::AwaitProofResponse::CANCELLED);
    pending_id = MustSubmit(*stub, FixtureSnapRequest("kept-pending"));
    ASSERT_EQ(d.Signal(SIGTERM), 0) << d.Log();
  }
  DaemonProcess d(toml);
  auto stub = d.Stub();
  EXPECT_EQ(CorruptFiles(state.path()).size(), 1u) << d.Log();                            // the fresh store was sound
  EXPECT_EQ(Await(*stub, cancelled_id, 10).status(), v1::AwaitProofResponse::CANCELLED);  // a client's: final
  const v1::AwaitProofResponse pending = Await(*stub, pending_id, 10);
  EXPECT_EQ(pending.status(), v1::AwaitProofResponse::TIMEOUT) << pending.error_message();  // queued again
  EXPECT_NE(d.Log().find("job " + pending_id + " queued again after a restart"), std::string::npos) << d.Log();
  // The request_id names the job across the restart.
  EXPECT_EQ(MustSubmit(*stub, FixtureSnapRequest("kept-pending")), pending_id);
  v1::CancelProofRequest cancel;
  cancel.set_job_id(pending_id);
  v1::CancelProofResponse resp;
  EXPECT_TRUE(stub->CancelProof(Ctx().get(), cancel, &resp).ok());
}

// A state_dir that cannot be a directory stops the daemon at start, naming
// the key: it never runs without the durability its config asks for.
TEST(DaemonJournal, UnusableStateDirStopsTheStartNamingIt) {
  TempDir dir;
  const std::string file = dir.path() + "/not-a-dir";
  std::ofstream(file) << "x";
  const auto [code, log] =
      RunDaemonExpectingExit("[daemon]\nlisten = \"unix://" + dir.path() + "/cuzk.sock\"\nstate_dir = \"" + file +
                                 "\"\n[srs]\nparam_cache = \"" + ParamCache() + "\"\n",
                             seconds(60));
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("daemon.state_dir " + file), std::string::npos) << log;
}

// Two daemons on one state_dir would queue the same jobs again and prove
// them twice: the second one exits 1 naming the directory.
TEST(DaemonJournal, ASecondDaemonOnTheSameStateDirIsRefused) {
  TempDir state;
  DaemonProcess first(StateDirToml(state.path()));
  TempDir dir;
  const auto [code, log] =
      RunDaemonExpectingExit("[daemon]\nlisten = \"unix://" + dir.path() + "/cuzk.sock\"\nstate_dir = \"" +
                                 state.path() + "\"\n[srs]\nparam_cache = \"" + ParamCache() + "\"\n",
                             seconds(60));
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("is in use by another cuzk-daemon"), std::string::npos) << log;
  EXPECT_EQ(first.State(), "running");
}

}  // namespace
}  // namespace cuzk::test
