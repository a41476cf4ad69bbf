#pragma once
// Cache files: what cuzk derives once from slow inputs (a compiled circuit,
// a proving key decoded from its .params) stored in the form it is used in,
// so a restart reads it at memory speed instead of deriving it again.
//
// A cache never decides a result on its own. Each file names what it was
// made from (`kind` and a 64-bit `source` digest the caller computes: the
// .params file's identity, the circuit id and the compiler's digest), and
// every section carries a digest of its bytes. A reader that finds any of
// them different, or a file cut short, throws CacheError and the caller
// derives the data again (and rewrites the cache).
//
// Layout (little-endian):
//   [0, 4096)  header: magic "CUZKCACH", format version, section count, kind
//              (32 bytes, zero-padded), source digest, header digest, then
//              per section: name (24 bytes), offset, bytes, digest.
//   sections   each at a 4096-aligned offset.
// A section's digest is XXH3-64 over the XXH3-64 digests of its 48 MiB
// chunks (taken in order), so writers and readers hash each chunk on its own
// thread: verifying costs one pass over bytes the reader copies anyway
// (XXH3 runs at ~20 GB/s per core, faster than the copy). Readers pread
// each chunk straight into the caller's memory: one copy from the page
// cache, and no page faults on a mapping (one per 4 KiB page: 9 million
// for a 37 GB key image).
//
//   CacheWriter w(path, "groth16-key", source);
//   w.AddSection("h", n * 96, [&](uint64_t offset, std::span<uint8_t> out) { ... });
//   w.Commit();                       // fsync, then rename over `path`
//
//   CacheReader r(path, "groth16-key", source);   // CacheError when stale or damaged
//   r.ReadSection("h", std::as_writable_bytes(std::span(points)), threads);
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::util {

// A cache file that is missing, stale (made from something else) or damaged.
class CacheError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CacheSection {
  std::string name;
  uint64_t offset = 0, bytes = 0, digest = 0;
};

// 3 * 2^24 bytes: a multiple of every record a cache holds (G1 96 bytes, G2
// 192, Fr 32, u64 8, u32 4), so no record straddles two chunks.
inline constexpr uint64_t kCacheChunkBytes = 3ull << 24;

// XXH3-64 of bytes (for source digests: a header, a file's head and tail).
uint64_t Digest64(std::span<const uint8_t> bytes, uint64_t seed = 0);

class CacheWriter {
 public:
  // Fills a chunk of a section: `offset` is the chunk's offset within the
  // section, `out` the bytes to write there (at most kCacheChunkBytes).
  using Fill = std::function<void(uint64_t offset, std::span<uint8_t> out)>;

  // Writes into `path`.tmp-<pid>-<n> beside `path` (std::system_error if it
  // cannot be created). cancel: checked between chunks; when set, the write
  // stops with CacheError and the temporary file is removed.
  CacheWriter(std::string path, std::string_view kind, uint64_t source, const std::atomic<bool>* cancel = nullptr);
  ~CacheWriter();  // removes the temporary file unless committed
  CacheWriter(const CacheWriter&) = delete;
  CacheWriter& operator=(const CacheWriter&) = delete;

  // Appends a section (names up to 23 bytes, each once; at most 80 sections).
  void AddSection(std::string_view name, uint64_t bytes, const Fill& fill);
  // Writes the header, fsyncs the file, renames it over `path` and fsyncs the folder.
  void Commit();
  uint64_t bytes_written() const { return offset_; }

 private:
  std::string path_, tmp_path_, kind_;
  uint64_t source_;
  const std::atomic<bool>* cancel_;
  int fd_ = -1;
  uint64_t offset_ = 0;
  std::vector<CacheSection> sections_;
  bool committed_ = false;
};

class CacheReader {
 public:
  // Maps the file and checks its header: magic, version, kind, source, the
  // header digest, and every section inside the file. CacheError naming the
  // path and the first difference otherwise.
  CacheReader(const std::string& path, std::string_view kind, uint64_t source);

  bool Has(std::string_view name) const;
  const CacheSection& Section(std::string_view name) const;  // CacheError if absent
  // Reads the section into `dest` (which must be exactly its size) on up to
  // `threads` threads (0 = all), chunk by chunk, hashing each chunk and
  // calling check(offset, chunk) on it while it is in cache (throw
  // CacheError to refuse it), then checks the section's digest. On any
  // CacheError the caller must discard what `dest` holds.
  using Check = std::function<void(uint64_t offset, std::span<const uint8_t> chunk)>;
  void ReadSection(std::string_view name, std::span<uint8_t> dest, unsigned threads, const Check& check = {}) const;
  // The same read with the destination chosen per chunk, for bytes that go
  // on somewhere else (a GPU's memory, through page-locked buffers):
  // buffer(worker, offset, bytes) returns where worker `worker` (0 ..
  // threads - 1; each takes the next chunk not yet taken, so its chunks come
  // in increasing order) reads the chunk at `offset` (`bytes` long, at most
  // kCacheChunkBytes); the chunk is hashed there, then consume(worker,
  // offset, chunk) runs before that worker asks for its next buffer. The section's digest is checked after every
  // chunk was consumed: on CacheError the caller discards what it consumed.
  using ChunkBuffer = std::function<std::span<uint8_t>(unsigned worker, uint64_t offset, size_t bytes)>;
  using Consume = std::function<void(unsigned worker, uint64_t offset, std::span<const uint8_t> chunk)>;
  void StreamSection(std::string_view name, unsigned threads, const ChunkBuffer& buffer, const Consume& consume) const;
  // Bytes [offset, offset + dest.size()) of a section, its digest NOT
  // checked: only for identifying a few elements of a section whose bytes
  // are checked as a whole elsewhere (StreamSection).
  void ReadUnchecked(std::string_view name, uint64_t offset, std::span<uint8_t> dest) const;
  // A small section's bytes, digest checked.
  std::vector<uint8_t> SectionBytes(std::string_view name) const;
  const std::string& path() const { return path_; }
  ~CacheReader();
  CacheReader(const CacheReader&) = delete;
  CacheReader& operator=(const CacheReader&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<CacheSection> sections_;
};

}  // namespace cuzk::util
