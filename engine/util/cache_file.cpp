#include "engine/util/cache_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "engine/util/parallel.hpp"

// Header-only: nothing to link or to ship in the GPU host's bundle.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace cuzk::util {
namespace {

static_assert(std::endian::native == std::endian::little, "cache files are little-endian, as the memory they copy");

constexpr char kMagic[8] = {'C', 'U', 'Z', 'K', 'C', 'A', 'C', 'H'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderBytes = 4096;
constexpr uint64_t kAlign = 4096;
constexpr size_t kKindBytes = 32, kNameBytes = 24;
constexpr size_t kSectionsAt = 64, kSectionEntryBytes = kNameBytes + 24;
constexpr size_t kMaxSections = (kHeaderBytes - kSectionsAt) / kSectionEntryBytes;
constexpr size_t kHeaderDigestAt = 56;

uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
void Store64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

uint64_t ChunkCount(uint64_t bytes) { return (bytes + kCacheChunkBytes - 1) / kCacheChunkBytes; }

// The section digest from its chunk digests (in order) and its length.
uint64_t CombineChunkDigests(const std::vector<uint64_t>& chunks, uint64_t bytes) {
  return XXH3_64bits_withSeed(chunks.data(), chunks.size() * sizeof(uint64_t), bytes);
}

std::string FixedString(const uint8_t* p, size_t n) {
  return std::string(reinterpret_cast<const char*>(p), strnlen(reinterpret_cast<const char*>(p), n));
}

void WriteAll(int fd, const uint8_t* p, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, n, off_t(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::system_error(errno ? errno : EIO, std::generic_category(), path + ": cannot write");
    p += w;
    n -= size_t(w);
    offset += uint64_t(w);
  }
}

std::vector<uint8_t> EncodeHeader(std::string_view kind, uint64_t source, const std::vector<CacheSection>& sections) {
  std::vector<uint8_t> h(kHeaderBytes, 0);
  std::memcpy(h.data(), kMagic, 8);
  const uint32_t version = kVersion, count = uint32_t(sections.size());
  std::memcpy(h.data() + 8, &version, 4);
  std::memcpy(h.data() + 12, &count, 4);
  std::memcpy(h.data() + 16, kind.data(), std::min(kind.size(), kKindBytes));
  Store64(h.data() + 48, source);
  for (size_t i = 0; i < sections.size(); ++i) {
    uint8_t* e = h.data() + kSectionsAt + i * kSectionEntryBytes;
    std::memcpy(e, sections[i].name.data(), sections[i].name.size());
    Store64(e + kNameBytes, sections[i].offset);
    Store64(e + kNameBytes + 8, sections[i].bytes);
    Store64(e + kNameBytes + 16, sections[i].digest);
  }
  Store64(h.data() + kHeaderDigestAt, XXH3_64bits(h.data(), h.size()));  // over the header with this field 0
  return h;
}

}  // namespace

uint64_t Digest64(std::span<const uint8_t> bytes, uint64_t seed) {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
}

CacheWriter::CacheWriter(std::string path, std::string_view kind, uint64_t source, const std::atomic<bool>* cancel)
    : path_(std::move(path)), kind_(kind), source_(source), cancel_(cancel) {
  if (kind_.size() > kKindBytes) throw std::invalid_argument("cache kind longer than 32 bytes: " + kind_);
  static std::atomic<uint64_t> counter{0};
  tmp_path_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), tmp_path_ + ": cannot create");
  offset_ = kHeaderBytes;  // the header is written last, by Commit
}

CacheWriter::~CacheWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_path_.c_str());
}

void CacheWriter::AddSection(std::string_view name, uint64_t bytes, const Fill& fill) {
  if (name.empty() || name.size() >= kNameBytes) throw std::invalid_argument("cache section name must be 1-23 bytes");
  if (sections_.size() >= kMaxSections) throw std::invalid_argument("too many cache sections");
  for (const auto& s : sections_) {
    if (s.name == name) throw std::invalid_argument("cache section " + std::string(name) + " added twice");
  }
  offset_ = (offset_ + kAlign - 1) / kAlign * kAlign;
  CacheSection section{.name = std::string(name), .offset = offset_, .bytes = bytes, .digest = 0};
  // One chunk buffer, filled and written in turn: the fill functions copy
  // from memory (GB/s), so the disk or the page cache sets the pace.
  std::vector<uint8_t> buffer(size_t(std::min(bytes, kCacheChunkBytes)));
  std::vector<uint64_t> chunk_digests;
  chunk_digests.reserve(ChunkCount(bytes));
  for (uint64_t done = 0; done < bytes;) {
    if (cancel_ && cancel_->load(std::memory_order_relaxed)) throw CacheError(path_ + ": write cancelled");
    const uint64_t n = std::min(bytes - done, kCacheChunkBytes);
    std::span<uint8_t> out(buffer.data(), size_t(n));
    fill(done, out);
    chunk_digests.push_back(XXH3_64bits(out.data(), out.size()));
    WriteAll(fd_, out.data(), out.size(), offset_ + done, tmp_path_);
    done += n;
  }
  section.digest = CombineChunkDigests(chunk_digests, bytes);
  offset_ += bytes;
  sections_.push_back(std::move(section));
}

void CacheWriter::Commit() {
  const std::vector<uint8_t> header = EncodeHeader(kind_, source_, sections_);
  WriteAll(fd_, header.data(), header.size(), 0, tmp_path_);
  if (::ftruncate(fd_, off_t(std::max(offset_, kHeaderBytes))) != 0 || ::fsync(fd_) != 0) {
    throw std::system_error(errno, std::generic_category(), tmp_path_ + ": cannot sync");
  }
  ::close(fd_);
  fd_ = -1;
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot rename " + tmp_path_ + " to " + path_);
  }
  committed_ = true;
  // The rename is durable once the folder is synced (best effort: a crash
  // before it leaves the old file or none, both of which readers handle).
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

namespace {

void ReadAll(int fd, uint8_t* p, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t r = ::pread(fd, p, n, off_t(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw CacheError(path + ": cannot read: " + std::strerror(errno));
    if (r == 0) throw CacheError(path + ": cut short while reading");
    p += r;
    n -= size_t(r);
    offset += uint64_t(r);
  }
}

}  // namespace

CacheReader::CacheReader(const std::string& path, std::string_view kind, uint64_t source) : path_(path) {
  auto fail = [&](const std::string& what) { throw CacheError(path + ": " + what); };
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) fail("not a regular file");
  const uint64_t file_bytes = uint64_t(st.st_size);
  if (file_bytes < kHeaderBytes) fail("shorter than its header (" + std::to_string(file_bytes) + " bytes)");
  std::vector<uint8_t> header(kHeaderBytes);
  ReadAll(fd_, header.data(), header.size(), 0, path);
  if (std::memcmp(header.data(), kMagic, 8) != 0) fail("not a cuzk cache file");
  uint32_t version = 0, count = 0;
  std::memcpy(&version, header.data() + 8, 4);
  std::memcpy(&count, header.data() + 12, 4);
  if (version != kVersion) {
    fail("format version " + std::to_string(version) + ", this build reads " + std::to_string(kVersion));
  }
  const uint64_t header_digest = Load64(header.data() + kHeaderDigestAt);
  Store64(header.data() + kHeaderDigestAt, 0);
  if (XXH3_64bits(header.data(), header.size()) != header_digest) fail("header digest mismatch (damaged)");
  const std::string file_kind = FixedString(header.data() + 16, kKindBytes);
  if (file_kind != kind) fail("holds a " + file_kind + ", not a " + std::string(kind));
  if (Load64(header.data() + 48) != source) fail("made from other inputs (stale)");
  if (count > kMaxSections) fail("too many sections");
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = header.data() + kSectionsAt + i * kSectionEntryBytes;
    CacheSection s{.name = FixedString(e, kNameBytes),
                   .offset = Load64(e + kNameBytes),
                   .bytes = Load64(e + kNameBytes + 8),
                   .digest = Load64(e + kNameBytes + 16)};
    if (s.offset < kHeaderBytes || s.offset > file_bytes || s.bytes > file_bytes - s.offset) {
      fail("section " + s.name + " runs past the end of the file (truncated)");
    }
    sections_.push_back(std::move(s));
  }
}

CacheReader::~CacheReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool CacheReader::Has(std::string_view name) const {
  return std::any_of(sections_.begin(), sections_.end(), [&](const CacheSection& s) { return s.name == name; });
}

const CacheSection& CacheReader::Section(std::string_view name) const {
  for (const auto& s : sections_) {
    if (s.name == name) return s;
  }
  throw CacheError(path_ + ": no section " + std::string(name));
}

void CacheReader::ReadSection(std::string_view name, std::span<uint8_t> dest, unsigned threads,
                              const Check& check) const {
  const CacheSection& s = Section(name);
  if (s.bytes != dest.size()) {
    throw CacheError(path_ + ": section " + s.name + " holds " + std::to_string(s.bytes) + " bytes, expected " +
                     std::to_string(dest.size()));
  }
  StreamSection(
      name, threads, [&](unsigned, uint64_t offset, size_t bytes) { return dest.subspan(size_t(offset), bytes); },
      [&](unsigned, uint64_t offset, std::span<const uint8_t> chunk) {
        if (check) check(offset, chunk);
      });
}

void CacheReader::StreamSection(std::string_view name, unsigned threads, const ChunkBuffer& buffer,
                                const Consume& consume) const {
  const CacheSection& s = Section(name);
  std::vector<uint64_t> chunk_digests(ChunkCount(s.bytes));
  // Each worker takes the next chunk no one has taken: a worker slowed by
  // other work on the host (a load runs beside a job's first witnesses) holds
  // up one chunk, not a fixed run of them at the section's end.
  std::atomic<size_t> next{0};
  const size_t workers = std::min<size_t>(ResolveThreads(threads), chunk_digests.size());
  ParallelForChunks(workers, unsigned(workers), [&](size_t, size_t, size_t worker) {
    for (size_t c = next.fetch_add(1); c < chunk_digests.size(); c = next.fetch_add(1)) {
      const uint64_t off = c * kCacheChunkBytes, n = std::min(s.bytes - off, kCacheChunkBytes);
      std::span<uint8_t> chunk = buffer(unsigned(worker), off, size_t(n));
      if (chunk.size() != n) throw std::logic_error("CacheReader::StreamSection: a buffer of the wrong size");
      ReadAll(fd_, chunk.data(), chunk.size(), s.offset + off, path_);
      chunk_digests[c] = XXH3_64bits(chunk.data(), chunk.size());
      consume(unsigned(worker), off, chunk);
    }
  });
  if (CombineChunkDigests(chunk_digests, s.bytes) != s.digest) {
    throw CacheError(path_ + ": section " + s.name + " digest mismatch (damaged)");
  }
}

void CacheReader::ReadUnchecked(std::string_view name, uint64_t offset, std::span<uint8_t> dest) const {
  const CacheSection& s = Section(name);
  if (offset > s.bytes || dest.size() > s.bytes - offset) {
    throw CacheError(path_ + ": section " + s.name + " has no bytes [" + std::to_string(offset) + ", " +
                     std::to_string(offset + dest.size()) + ")");
  }
  ReadAll(fd_, dest.data(), dest.size(), s.offset + offset, path_);
}

std::vector<uint8_t> CacheReader::SectionBytes(std::string_view name) const {
  const CacheSection& s = Section(name);
  if (s.bytes > (64u << 20)) throw CacheError(path_ + ": section " + s.name + " too large to read whole");
  std::vector<uint8_t> out(size_t(s.bytes));
  ReadSection(name, out, 1);
  return out;
}

}  // namespace cuzk::util
