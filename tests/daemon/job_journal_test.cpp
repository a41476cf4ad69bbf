// The job journal in-process: the versioned job codec (prover/job_codec.hpp)
// on the fixture's 2 KiB request and on damaged bytes, and the SQLite store
// (prover/sqlite_job_journal.hpp): what it keeps across a reopen, what
// Forget removes, and a damaged store moved aside, never emptied.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "daemon/errors.hpp"
#include "daemon/request_validation.hpp"
#include "prover/job_codec.hpp"
#include "prover/prover.hpp"
#include "prover/sqlite_job_journal.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::prover {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cuzk-journal-test-XXXXXX").string();
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

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::shared_ptr<ProofJob> FixtureJob() { return daemon::ValidateSubmit(test::FixtureSnapRequest("snap-1-1")).job; }

TEST(JobCodec, SnapDealsJobRoundTrips) {
  auto job = FixtureJob();
  job->priority = Priority::kHigh;
  const std::vector<uint8_t> bytes = EncodeJobInputs(*job, "snap-2k");
  const DecodedJobInputs back = DecodeJobInputs(bytes);
  EXPECT_EQ(back.circuit_id, "snap-2k");
  EXPECT_EQ(back.job->kind, JobKind::kSnapDeals);
  EXPECT_EQ(back.job->priority, Priority::kHigh);
  EXPECT_EQ(back.job->shape.sector_bytes, 2048u);
  EXPECT_EQ(back.job->shape.h, job->shape.h);
  EXPECT_EQ(back.job->commitments.comm_r_old, job->commitments.comm_r_old);
  EXPECT_EQ(back.job->commitments.comm_d_new, job->commitments.comm_d_new);
  EXPECT_EQ(back.job->commitments.comm_r_new, job->commitments.comm_r_new);
  EXPECT_EQ(back.job->partitions, job->partitions);
}

TEST(JobCodec, GenericJobRoundTrips) {
  ProofJob job;
  job.kind = JobKind::kGenericR1cs;
  job.priority = Priority::kLow;
  job.witness.values = {ff::Fr::One(), ff::Fr::FromUint64(7), ff::Fr::FromUint64(1ull << 40)};
  const DecodedJobInputs back = DecodeJobInputs(EncodeJobInputs(job, "multi_public"));
  EXPECT_EQ(back.circuit_id, "multi_public");
  EXPECT_EQ(back.job->kind, JobKind::kGenericR1cs);
  EXPECT_EQ(back.job->priority, Priority::kLow);
  ASSERT_EQ(back.job->witness.values.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(back.job->witness.values[i] == job.witness.values[i]) << i;
}

// A damaged row is refused with a JobCodecError, whatever the damage: every
// truncation, a bit flipped anywhere in the header, a trailing byte.
TEST(JobCodec, DamagedBytesAreRefusedByName) {
  const std::vector<uint8_t> good = EncodeJobInputs(*FixtureJob(), "snap-2k");
  for (size_t n = 0; n < good.size(); n += 97) {
    EXPECT_THROW(DecodeJobInputs(std::span(good).first(n)), JobCodecError) << "truncated to " << n;
  }
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_THROW(DecodeJobInputs(trailing), JobCodecError);
  std::vector<uint8_t> version = good;
  version[4] = 2;
  try {
    DecodeJobInputs(version);
    ADD_FAILURE() << "version 2 accepted";
  } catch (const JobCodecError& e) {
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
  }
  for (size_t byte = 0; byte < 39; ++byte) {  // magic, version, kind, priority, circuit id, sector size, h
    std::vector<uint8_t> flipped = good;
    flipped[byte] ^= 0x40;
    try {
      const DecodedJobInputs d = DecodeJobInputs(flipped);
      // Only the circuit id's letters can change and still decode: then it names another circuit.
      EXPECT_NE(d.circuit_id, "snap-2k") << "byte " << byte;
    } catch (const JobCodecError&) {
    }
  }
}

JournalJob Entry(const std::string& id, const std::string& request_id) {
  JournalJob j;
  j.id = id;
  j.request_id = request_id;
  j.digest = std::string("\x01\x00\xff", 3);
  j.kind = JobKind::kSnapDeals;
  j.priority = Priority::kHigh;
  j.circuit_id = "snap-2k";
  j.submitted_unix_ms = UnixMillisNow() - 1234;
  j.payload = EncodeJobInputs(*FixtureJob(), "snap-2k");
  return j;
}

TEST(SqliteJobJournal, KeepsJobsAcrossAReopenUntilForgotten) {
  TempDir dir;
  const JournalJob a = Entry("snap-1-1", "snap-1-1");
  const JournalJob b = Entry("job-0123", "");
  JournalJob a_end;
  {
    auto j = SqliteJobJournal::Open(dir.path() + "/state");  // created
    EXPECT_EQ(j->moved_aside(), "");
    j->RecordAccepted(a);
    j->RecordAccepted(b);
    j->RecordStarted(a.id);
    a_end.id = a.id;
    a_end.state = JobState::kCompleted;
    a_end.ended_unix_ms = UnixMillisNow();
    a_end.proof.assign(192, 9);
    a_end.timings.total_ms = 4321;
    j->RecordFinished(a_end);
  }
  auto j = SqliteJobJournal::Open(dir.path() + "/state");
  EXPECT_EQ(j->moved_aside(), "");
  std::vector<JournalJob> all = j->LoadAll();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, a.id);  // acceptance order
  EXPECT_EQ(all[0].state, JobState::kCompleted);
  EXPECT_EQ(all[0].proof, a_end.proof);
  EXPECT_EQ(all[0].timings.total_ms, 4321);
  EXPECT_TRUE(all[0].payload.empty());  // dropped once ended
  EXPECT_EQ(all[0].digest, a.digest);
  EXPECT_EQ(all[1].id, b.id);
  EXPECT_EQ(all[1].state, JobState::kQueued);
  EXPECT_EQ(all[1].request_id, "");
  EXPECT_EQ(all[1].priority, Priority::kHigh);
  EXPECT_EQ(all[1].submitted_unix_ms, b.submitted_unix_ms);
  EXPECT_EQ(all[1].payload, b.payload);
  j->Forget(a.id, a_end.ended_unix_ms + 1);  // another end: another job of that id
  EXPECT_EQ(j->LoadAll().size(), 2u);
  j->Forget(a.id, a_end.ended_unix_ms);
  all = j->LoadAll();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, b.id);
}

// A journal whose every write fails, as a full or broken disk would.
class FailingJournal final : public JobJournal {
 public:
  void RecordAccepted(const JournalJob&) override { throw JournalError("job journal: database or disk is full"); }
  void RecordStarted(const std::string&) override {}
  void RecordFinished(const JournalJob&) override {}
  void Forget(const std::string&, int64_t) override {}
  std::vector<JournalJob> LoadAll() override { return {}; }
};

// The submit is refused with INTERNAL naming the journal; nothing is queued;
// the request_id is not stuck: a retry starts a new job.
TEST(ProverJournal, AFailedWriteRefusesTheSubmit) {
  ProverOptions o;
  o.param_cache = test::ParamCache();
  o.journal = std::make_shared<FailingJournal>();
  Prover prover(o);
  std::string first;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const daemon::ValidatedRequest v = daemon::ValidateSubmit(test::FixtureSnapRequest("snap-9"));
    try {
      prover.Submit("snap-9", v.digest, v.job, v.circuit_id);
      ADD_FAILURE() << "accepted without a journal write";
    } catch (const JournalError&) {
      const grpc::Status s = daemon::ToGrpcStatus(std::current_exception());
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INTERNAL);
      EXPECT_NE(s.error_message().find("not accepted: the job journal could not record it"), std::string::npos)
          << s.error_message();
      EXPECT_NE(s.error_message().find("disk is full"), std::string::npos) << s.error_message();
    }
    EXPECT_NE(v.job->id, first);  // the retry was a new job, not the failed one handed back
    first = v.job->id;
    const JobView view = prover.tracker().Await(v.job->id, std::chrono::steady_clock::now());
    EXPECT_EQ(view.state, JobState::kFailed);
    EXPECT_NE(view.error.find("not accepted"), std::string::npos) << view.error;
  }
  for (const auto& [kind, c] : prover.runner().Counts().by_kind) EXPECT_EQ(c.pending + c.in_progress, 0u);
  prover.Shutdown(std::chrono::steady_clock::now());
}

// What a start does with the journal's rows, without proving anything: a
// finished job answers with its proof, one whose retention ran out while the
// daemon was down is deleted, and an unfinished one whose inputs cannot be
// read ends FAILED naming why (never dropped in silence).
TEST(ProverJournal, AStartKeepsFinishedJobsDeletesExpiredOnesAndFailsUnreadableOnes) {
  TempDir dir;
  const int64_t now = UnixMillisNow();
  {
    auto j = SqliteJobJournal::Open(dir.path());
    for (const char* id : {"done", "expired", "unreadable"}) j->RecordAccepted(Entry(id, id));
    JournalJob end;
    end.id = "done";
    end.state = JobState::kCompleted;
    end.ended_unix_ms = now - 1000;
    end.proof.assign(192, 5);
    j->RecordFinished(end);
    end.id = "expired";
    end.ended_unix_ms = now - 2 * 3600 * 1000;
    j->RecordFinished(end);
    JournalJob broken = Entry("unreadable", "unreadable");
    broken.payload.resize(100);  // cut short
    j->RecordAccepted(broken);
  }
  ProverOptions o;
  o.param_cache = test::ParamCache();
  o.state_dir = dir.path();
  o.job_retention = std::chrono::hours(1);
  {
    Prover prover(o);
    const auto t = std::chrono::steady_clock::now();
    const JobView done = prover.tracker().Await("done", t);
    EXPECT_EQ(done.state, JobState::kCompleted);
    EXPECT_EQ(done.proof, std::vector<uint8_t>(192, 5));
    EXPECT_EQ(prover.tracker().Join("done", Entry("done", "done").digest), "done");  // a retry gets it at once
    EXPECT_THROW(prover.tracker().Await("expired", t), JobNotFoundError);
    const JobView unreadable = prover.tracker().Await("unreadable", t);
    EXPECT_EQ(unreadable.state, JobState::kFailed);
    EXPECT_NE(unreadable.error.find("not queued again after the daemon restarted: job record"), std::string::npos)
        << unreadable.error;
    prover.Shutdown(t);
  }  // the journal closes with it (one journal per state_dir)
  std::vector<std::string> ids;
  for (const JournalJob& e : SqliteJobJournal::Open(dir.path())->LoadAll()) ids.push_back(e.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"done", "unreadable"}));  // the failure is recorded too
}

// Damage of each kind: the file is renamed aside intact and a fresh store serves.
void ExpectMovedAside(const std::string& dir, const std::string& damaged_bytes, const std::string& why) {
  const std::string db = dir + "/state.db";
  auto j = SqliteJobJournal::Open(dir);
  ASSERT_NE(j->moved_aside(), "") << why;
  EXPECT_EQ(j->moved_aside().rfind(db + ".corrupt-", 0), 0u) << j->moved_aside();
  EXPECT_EQ(ReadFile(j->moved_aside()), damaged_bytes) << why;  // kept as it was
  EXPECT_TRUE(j->LoadAll().empty());
  j->RecordAccepted(Entry("after", "after"));
  EXPECT_EQ(j->LoadAll().size(), 1u);
}

TEST(SqliteJobJournal, GarbageIsMovedAsideNotEmptied) {
  TempDir dir;
  const std::string garbage = "this is not a database\n" + std::string(5000, '\x5a');
  WriteFile(dir.path() + "/state.db", garbage);
  ExpectMovedAside(dir.path(), garbage, "garbage");
}

TEST(SqliteJobJournal, UnknownSchemaVersionIsMovedAside) {
  TempDir dir;
  const std::string db = dir.path() + "/state.db";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE jobs(x); INSERT INTO jobs VALUES (1); PRAGMA user_version=9;", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  ExpectMovedAside(dir.path(), ReadFile(db), "schema version 9");
}

TEST(SqliteJobJournal, TruncatedStoreIsMovedAside) {
  TempDir dir;
  const std::string db = dir.path() + "/state.db";
  {
    auto j = SqliteJobJournal::Open(dir.path());
    for (int i = 0; i < 40; ++i) j->RecordAccepted(Entry("job-" + std::to_string(i), ""));
  }  // closed: the WAL is checkpointed into the file
  const std::string whole = ReadFile(db);
  ASSERT_GT(whole.size(), 100'000u);
  const std::string half = whole.substr(0, whole.size() / 2);
  WriteFile(db, half);
  ExpectMovedAside(dir.path(), half, "truncated");
}

// A second journal (daemon) on the same state_dir is refused while the first lives.
TEST(SqliteJobJournal, OneJournalPerStateDir) {
  TempDir dir;
  auto first = SqliteJobJournal::Open(dir.path());
  try {
    SqliteJobJournal::Open(dir.path());
    ADD_FAILURE() << "a second journal opened the same state_dir";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find("in use by another cuzk-daemon"), std::string::npos) << e.what();
  }
  first.reset();
  EXPECT_NO_THROW(SqliteJobJournal::Open(dir.path()));  // the lock went with it
}

// What a submit pays for durability: one fsync'd transaction. Printed for
// docs/reliability.md; the bound only catches a store that stopped syncing
// in batches or hangs.
TEST(SqliteJobJournal, RecordAcceptedCost) {
  TempDir dir;
  auto j = SqliteJobJournal::Open(dir.path());
  const JournalJob e = Entry("x", "x");
  constexpr int kWrites = 30;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kWrites; ++i) {
    JournalJob k = e;
    k.id = "job-" + std::to_string(i);
    j->RecordAccepted(k);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("RecordAccepted: %.2f ms per job (%zu-byte payload, %d writes, %s)\n", ms / kWrites, e.payload.size(),
              kWrites, fs::temp_directory_path().c_str());
  EXPECT_LT(ms / kWrites, 1000.0);
}

}  // namespace
}  // namespace cuzk::prover
