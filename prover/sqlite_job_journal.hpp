#pragma once
// SqliteJobJournal: the JobJournal in one SQLite file, <state_dir>/state.db,
// in WAL mode with synchronous=FULL: every write is one transaction whose
// WAL frames are fsync'd before it returns, so a job accepted (and a proof
// recorded) survives a SIGKILL, an OOM kill or a power loss. Costs one fsync
// per write (RecordAccepted, RecordStarted, RecordFinished, Forget): the
// figures per submit are in docs/reliability.md, "Durable jobs".
//
//   auto journal = SqliteJobJournal::Open("/var/lib/cuzk");   // JournalError if the directory is unusable
//   journal->moved_aside();   // where a damaged store went ("" when none)
//
// A store that is not a SQLite database, fails PRAGMA integrity_check, or
// has a schema version this build does not know is never emptied in place:
// it is logged and renamed to state.db.corrupt-<UTC time> (with its -wal and
// -shm files), and a fresh store is created beside it.
//
// One daemon per state_dir: Open takes an exclusive flock on
// <state_dir>/state.lock for the journal's life, so a second daemon started
// on the same directory by mistake fails to start (JournalError) instead of
// queueing the same jobs again and proving them twice.
//
// Locking: mu_ guards the one connection; a leaf lock (nothing is called
// under it but SQLite).
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prover/job_journal.hpp"

struct sqlite3;

namespace cuzk::prover {

class SqliteJobJournal final : public JobJournal {
 public:
  static constexpr int kSchemaVersion = 1;
  static std::unique_ptr<SqliteJobJournal> Open(const std::string& state_dir);
  ~SqliteJobJournal() override;
  SqliteJobJournal(const SqliteJobJournal&) = delete;
  SqliteJobJournal& operator=(const SqliteJobJournal&) = delete;

  const std::string& path() const { return path_; }
  const std::string& moved_aside() const { return moved_aside_; }

  void RecordAccepted(const JournalJob& job) override;
  void RecordStarted(const std::string& job_id) override;
  void RecordFinished(const JournalJob& job) override;
  void Forget(const std::string& job_id, int64_t ended_unix_ms) override;
  std::vector<JournalJob> LoadAll() override;

 private:
  SqliteJobJournal(std::string path, std::string moved_aside, int lock_fd, sqlite3* db);

  const std::string path_;
  const std::string moved_aside_;
  const int lock_fd_;  // holds the flock on state.lock; closed last
  mutable absl::Mutex mu_;
  sqlite3* const db_ ABSL_GUARDED_BY(mu_);  // (the pointer is constant; its use is guarded)
};

}  // namespace cuzk::prover
