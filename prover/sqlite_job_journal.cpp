#include "prover/sqlite_job_journal.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>

namespace cuzk::prover {

namespace fs = std::filesystem;

int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- accepted order
  id TEXT NOT NULL UNIQUE,
  request_id TEXT NOT NULL,
  digest BLOB NOT NULL,
  kind INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  circuit_id TEXT NOT NULL,
  submitted_unix_ms INTEGER NOT NULL,
  payload BLOB,                            -- job_codec.hpp; NULL once ended
  state TEXT NOT NULL,                     -- queued, running, completed, failed, cancelled
  started_unix_ms INTEGER,
  ended_unix_ms INTEGER,
  proof BLOB,
  error TEXT,
  queue_wait_ms REAL, srs_load_ms REAL, synthesis_ms REAL, gpu_compute_ms REAL,
  finalize_ms REAL, verify_ms REAL, total_ms REAL
);
)sql";

// One prepared statement; finalized on every path.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
      throw JournalError(std::string("job journal: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& Text(int i, const std::string& v) {
    return Check(sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT));
  }
  Stmt& Blob(int i, const void* p, size_t n) {
    return Check(n ? sqlite3_bind_blob64(s_, i, p, n, SQLITE_TRANSIENT) : sqlite3_bind_zeroblob(s_, i, 0));
  }
  Stmt& Int(int i, int64_t v) { return Check(sqlite3_bind_int64(s_, i, v)); }
  Stmt& Real(int i, double v) { return Check(sqlite3_bind_double(s_, i, v)); }
  Stmt& Null(int i) { return Check(sqlite3_bind_null(s_, i)); }
  // SQLITE_DONE for a write; true while rows come.
  bool Step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw JournalError(std::string("job journal: ") + sqlite3_errmsg(db_));
  }
  std::string ColText(int i) const {
    const auto* p = sqlite3_column_text(s_, i);
    return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(s_, i))) : std::string();
  }
  std::vector<uint8_t> ColBlob(int i) const {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(s_, i));
    return p ? std::vector<uint8_t>(p, p + sqlite3_column_bytes(s_, i)) : std::vector<uint8_t>();
  }
  int64_t ColInt(int i) const { return sqlite3_column_int64(s_, i); }
  double ColReal(int i) const { return sqlite3_column_double(s_, i); }

 private:
  Stmt& Check(int rc) {
    if (rc != SQLITE_OK) throw JournalError(std::string("job journal: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string message = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw JournalError("job journal: " + message);
  }
}

// The single text value a PRAGMA returns.
std::string Pragma(sqlite3* db, const char* sql) {
  Stmt s(db, sql);
  return s.Step() ? s.ColText(0) : std::string();
}

sqlite3* OpenDb(const std::string& path) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw JournalError("job journal " + path + ": cannot open: " + message);
  }
  sqlite3_busy_timeout(db, 5000);
  return db;
}

// Why the store at `path` cannot be used as it is, or nullopt. Opening it
// replays its WAL; nothing is written unless it is sound.
std::optional<std::string> Damage(const std::string& path) {
  {
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    in.read(header, sizeof header);
    if (in.gcount() > 0 && (in.gcount() < 16 || std::memcmp(header, "SQLite format 3", 16) != 0))
      return "not a SQLite database (its first bytes are not \"SQLite format 3\")";
  }
  sqlite3* db = nullptr;
  try {
    db = OpenDb(path);
    const std::string integrity = Pragma(db, "PRAGMA integrity_check");
    if (integrity != "ok") {
      sqlite3_close(db);
      return "PRAGMA integrity_check: " + integrity.substr(0, 200);
    }
    const int64_t version = std::stoll(Pragma(db, "PRAGMA user_version"));
    int64_t table_count = 0;
    {
      // Finalized before the close: sqlite3_close refuses (SQLITE_BUSY) a
      // connection with a statement left, which then stays open for good
      // (LeakSanitizer saw every checked store's connection leak).
      Stmt tables(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
      tables.Step();
      table_count = tables.ColInt(0);
    }
    sqlite3_close(db);
    db = nullptr;
    if (version == SqliteJobJournal::kSchemaVersion || (version == 0 && table_count == 0)) return std::nullopt;
    return "schema version " + std::to_string(version) + " with " + std::to_string(table_count) +
           " table(s); this daemon knows version " + std::to_string(SqliteJobJournal::kSchemaVersion);
  } catch (const std::exception& e) {
    sqlite3_close(db);
    return std::string(e.what());
  }
}

std::string UtcStamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y%m%dT%H%M%SZ", &tm);
  return b;
}

// Renames the store and its WAL/shared-memory files to <path>.corrupt-<time>[-n]; returns the new name.
std::string MoveAside(const std::string& path) {
  std::string target = path + ".corrupt-" + UtcStamp();
  for (int n = 2; fs::exists(target); ++n) target = path + ".corrupt-" + UtcStamp() + "-" + std::to_string(n);
  fs::rename(path, target);
  for (const char* suffix : {"-wal", "-shm"}) {
    std::error_code ec;
    if (fs::exists(path + suffix, ec)) fs::rename(path + suffix, target + suffix, ec);
  }
  return target;
}

sqlite3* OpenFresh(const std::string& path) {
  sqlite3* db = OpenDb(path);
  try {
    // WAL: a write appends to the log (one fsync with synchronous=FULL)
    // instead of rewriting pages; readers never block the writer.
    if (Pragma(db, "PRAGMA journal_mode=WAL") != "wal")
      throw JournalError("job journal " + path + ": the file system does not support WAL mode");
    Exec(db, "PRAGMA synchronous=FULL");
    Exec(db, "BEGIN IMMEDIATE");
    Exec(db, kSchema);
    Exec(db, ("PRAGMA user_version=" + std::to_string(SqliteJobJournal::kSchemaVersion)).c_str());
    Exec(db, "COMMIT");
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  return db;
}

// The exclusive lock that makes a state_dir one daemon's; its fd, kept open.
int LockStateDir(const std::string& state_dir) {
  const std::string path = (fs::path(state_dir) / "state.lock").string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0660);
  if (fd < 0) throw JournalError("daemon.state_dir " + state_dir + ": cannot open " + path + ": " + strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    throw JournalError("daemon.state_dir " + state_dir + " is in use by another cuzk-daemon (" + path + " is locked" +
                       (err == EWOULDBLOCK ? ")" : ": " + std::string(strerror(err)) + ")") +
                       "; give each daemon its own state_dir");
  }
  return fd;
}

std::optional<JobState> ParseState(const std::string& s) {
  for (JobState st :
       {JobState::kQueued, JobState::kRunning, JobState::kCompleted, JobState::kFailed, JobState::kCancelled})
    if (s == JobStateName(st)) return st;
  return std::nullopt;
}

}  // namespace

std::unique_ptr<SqliteJobJournal> SqliteJobJournal::Open(const std::string& state_dir) {
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec || !fs::is_directory(state_dir))
    throw JournalError("daemon.state_dir " + state_dir + ": cannot create the directory: " + ec.message());
  const int lock_fd = LockStateDir(state_dir);  // before the store is looked at: nobody else writes it
  const std::string path = (fs::path(state_dir) / "state.db").string();
  std::string moved;
  std::error_code exists_ec;
  if (fs::exists(path, exists_ec)) {
    if (auto damage = Damage(path)) {
      try {
        moved = MoveAside(path);
      } catch (const std::exception& e) {
        ::close(lock_fd);
        throw JournalError("job journal " + path + " is damaged (" + *damage +
                           ") and cannot be moved aside: " + e.what());
      }
      spdlog::error("job journal {} is damaged: {}; moved aside to {} (kept for inspection), starting a fresh one",
                    path, *damage, moved);
    }
  }
  sqlite3* db = nullptr;
  try {
    db = OpenFresh(path);
  } catch (...) {
    ::close(lock_fd);
    throw;
  }
  return std::unique_ptr<SqliteJobJournal>(new SqliteJobJournal(path, moved, lock_fd, db));
}

SqliteJobJournal::SqliteJobJournal(std::string path, std::string moved_aside, int lock_fd, sqlite3* db)
    : path_(std::move(path)), moved_aside_(std::move(moved_aside)), lock_fd_(lock_fd), db_(db) {}

SqliteJobJournal::~SqliteJobJournal() {
  {
    absl::MutexLock lock(&mu_);
    sqlite3_close(db_);
  }
  ::close(lock_fd_);  // the next daemon on this state_dir may start
}

void SqliteJobJournal::RecordAccepted(const JournalJob& j) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_,
         "INSERT OR REPLACE INTO jobs (id, request_id, digest, kind, priority, circuit_id, submitted_unix_ms, "
         "payload, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  s.Text(1, j.id).Text(2, j.request_id).Blob(3, j.digest.data(), j.digest.size()).Int(4, int64_t(j.kind));
  s.Int(5, int64_t(j.priority)).Text(6, j.circuit_id).Int(7, j.submitted_unix_ms);
  s.Blob(8, j.payload.data(), j.payload.size()).Text(9, JobStateName(j.state));
  s.Step();
}

void SqliteJobJournal::RecordStarted(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, "UPDATE jobs SET state = 'running', started_unix_ms = ?2 WHERE id = ?1 AND state = 'queued'");
  s.Text(1, job_id).Int(2, UnixMillisNow());
  s.Step();
}

void SqliteJobJournal::RecordFinished(const JournalJob& j) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_,
         "UPDATE jobs SET state = ?2, ended_unix_ms = ?3, proof = ?4, error = ?5, payload = NULL, "
         "queue_wait_ms = ?6, srs_load_ms = ?7, synthesis_ms = ?8, gpu_compute_ms = ?9, finalize_ms = ?10, "
         "verify_ms = ?11, total_ms = ?12 WHERE id = ?1");
  s.Text(1, j.id).Text(2, JobStateName(j.state)).Int(3, j.ended_unix_ms).Blob(4, j.proof.data(), j.proof.size());
  s.Text(5, j.error).Real(6, j.timings.queue_wait_ms).Real(7, j.timings.srs_load_ms).Real(8, j.timings.synthesis_ms);
  s.Real(9, j.timings.gpu_compute_ms).Real(10, j.timings.finalize_ms).Real(11, j.timings.verify_ms);
  s.Real(12, j.timings.total_ms);
  s.Step();
}

void SqliteJobJournal::Forget(const std::string& job_id, int64_t ended_unix_ms) {
  absl::MutexLock lock(&mu_);
  Stmt s(db_, "DELETE FROM jobs WHERE id = ?1 AND ended_unix_ms = ?2");
  s.Text(1, job_id).Int(2, ended_unix_ms);
  s.Step();
}

std::vector<JournalJob> SqliteJobJournal::LoadAll() {
  absl::MutexLock lock(&mu_);
  Stmt s(db_,
         "SELECT id, request_id, digest, kind, priority, circuit_id, submitted_unix_ms, payload, state, "
         "ended_unix_ms, proof, error, queue_wait_ms, srs_load_ms, synthesis_ms, gpu_compute_ms, finalize_ms, "
         "verify_ms, total_ms FROM jobs ORDER BY seq");
  std::vector<JournalJob> out;
  while (s.Step()) {
    JournalJob j;
    j.id = s.ColText(0);
    j.request_id = s.ColText(1);
    const std::vector<uint8_t> digest = s.ColBlob(2);
    j.digest.assign(digest.begin(), digest.end());
    j.kind = JobKind(s.ColInt(3));
    j.priority = Priority(uint8_t(s.ColInt(4)));
    j.circuit_id = s.ColText(5);
    j.submitted_unix_ms = s.ColInt(6);
    j.payload = s.ColBlob(7);
    j.ended_unix_ms = s.ColInt(9);
    j.proof = s.ColBlob(10);
    j.error = s.ColText(11);
    j.timings = {s.ColReal(12), s.ColReal(13), s.ColReal(14), s.ColReal(15),
                 s.ColReal(16), s.ColReal(17), s.ColReal(18)};
    // A row this build cannot read is not dropped: it comes back failed, naming why.
    if (auto state = ParseState(s.ColText(8))) {
      j.state = *state;
    } else {
      j.state = JobState::kFailed;
      j.error = "job journal: unknown state \"" + s.ColText(8).substr(0, 32) + "\" in " + path_;
      j.ended_unix_ms = UnixMillisNow();
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace cuzk::prover
