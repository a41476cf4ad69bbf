#include "engine/groth16/key_image.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <future>
#include <optional>
#include <span>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <vector>

#include "engine/ec/encoding.hpp"
#include "engine/ff/limbs.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/util/cache_arrays.hpp"
#include "engine/util/cache_file.hpp"
#include "engine/util/fault_in.hpp"
#include "engine/util/page_cache.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::groth16 {
namespace {

constexpr std::string_view kKind = kKeyImageKind;

// Points are stored as the prover holds them in memory (AffinePoint: x, y,
// the infinity flag, padding to 8 bytes: G1 104 bytes, G2 200), so a read is
// one pread from the page cache straight into the key's vectors. The writer
// zeroes the padding (deterministic bytes, so deterministic digests); the
// reader checks every flag byte is 0 (an image never holds infinity) before
// the points are used.
template <class Point>
constexpr size_t kFlagAt = offsetof(Point, infinity);
static_assert(std::is_trivially_copyable_v<ec::G1Affine> && std::is_trivially_copyable_v<ec::G2Affine>);
static_assert(sizeof(ec::G1Affine) == 104 && kFlagAt<ec::G1Affine> == 96, "G1 affine: x, y, flag, padding");
static_assert(sizeof(ec::G2Affine) == 200 && kFlagAt<ec::G2Affine> == 192, "G2 affine: x, y, flag, padding");

// The counts, so a reader sizes every vector before it copies.
struct Meta {
  uint64_t h, l, a, b;
};

template <class Point>
std::array<uint8_t, sizeof(Point)> RecordOf(const Point& p) {
  std::array<uint8_t, sizeof(Point)> r{};  // padding zero
  std::memcpy(r.data(), &p.x, sizeof(p.x));
  std::memcpy(r.data() + sizeof(p.x), &p.y, sizeof(p.y));
  r[kFlagAt<Point>] = 0;
  return r;
}

template <class Point>
void AddPoints(util::CacheWriter& w, std::string_view name, std::span<const Point> points) {
  constexpr uint64_t kBytes = sizeof(Point);
  w.AddSection(name, points.size() * kBytes, [&](uint64_t offset, std::span<uint8_t> out) {
    // Records straddle chunk edges: each record overlapping the chunk is
    // built whole and its overlapping bytes copied.
    for (uint64_t i = offset / kBytes; i * kBytes < offset + out.size(); ++i) {
      const Point& p = points[size_t(i)];
      if (p.infinity) {
        throw std::invalid_argument("key section " + std::string(name) + " holds a point at infinity at index " +
                                    std::to_string(i) + ": not imaged");
      }
      const auto rec = RecordOf(p);
      const uint64_t lo = std::max(i * kBytes, offset), hi = std::min((i + 1) * kBytes, offset + out.size());
      std::memcpy(out.data() + (lo - offset), rec.data() + (lo - i * kBytes), size_t(hi - lo));
    }
  });
}

const char* SectionName(KeySection s) {
  switch (s) {
    case KeySection::kH: return "h";
    case KeySection::kHCompressed: return "h48";
    case KeySection::kL: return "l";
    case KeySection::kA: return "a";
    case KeySection::kBG1: return "b_g1";
    case KeySection::kBG2: return "b_g2";
  }
  return "?";
}

// kHCompressed records: x's limbs with the flags in the top two bits of the last byte.
constexpr size_t kCompressedBytes = 48;
constexpr uint8_t kCompressedInfinity = 0x80, kCompressedLargerY = 0x40;  // bits 383, 382
static_assert(sizeof(ec::G1Affine{}.x) == kCompressedBytes);
// Whole records in every chunk: the writer fills and CheckFlags scans them chunk by chunk.
static_assert(util::kCacheChunkBytes % kCompressedBytes == 0);

void AddCompressedPoints(util::CacheWriter& w, std::string_view name, std::span<const ec::G1Affine> points) {
  w.AddSection(name, points.size() * kCompressedBytes, [&](uint64_t offset, std::span<uint8_t> out) {
    // 48 divides the 48 MiB chunk: every chunk holds whole records. The
    // sign takes a conversion out of Montgomery form per point: a few
    // threads (the writer runs beside proving).
    const uint64_t first = offset / kCompressedBytes;
    util::ParallelFor(out.size() / kCompressedBytes, 4, [&](size_t k) {
      const ec::G1Affine& p = points[size_t(first + k)];
      if (p.infinity) {
        throw std::invalid_argument("key section " + std::string(name) + " holds a point at infinity at index " +
                                    std::to_string(first + k) + ": not imaged");
      }
      uint8_t* rec = out.data() + k * kCompressedBytes;
      std::memcpy(rec, &p.x, kCompressedBytes);
      if (rec[kCompressedBytes - 1] & (kCompressedInfinity | kCompressedLargerY)) {
        // x < p < 2^381 in any key ReadParams returned: the flag bits are free.
        throw std::invalid_argument("key section " + std::string(name) + " point " + std::to_string(first + k) +
                                    " has an x that is not a field element: not imaged");
      }
      // The sign bit of the Zcash encoding (an independent writer of the rule).
      if (ec::EncodeCompressed(p)[0] & ec::kFlagSort) rec[kCompressedBytes - 1] |= kCompressedLargerY;
    });
  });
}

// H's point from its compressed record (Shell, for an image that left the
// plain H out): y = sqrt(x^3 + 4), the root the record's flag names, chosen
// by the encoder's own sign rule. Two square roots per key: microseconds.
ec::G1Affine DecompressRecord(const std::string& path, uint64_t index, std::span<const uint8_t> record) {
  std::array<uint8_t, kCompressedBytes> x_bytes{};
  std::memcpy(x_bytes.data(), record.data(), kCompressedBytes);
  const uint8_t flags = x_bytes[kCompressedBytes - 1] & (kCompressedInfinity | kCompressedLargerY);
  if (flags & kCompressedInfinity) KeyImageStream::ThrowFlagSet(path, KeySection::kHCompressed, index);
  x_bytes[kCompressedBytes - 1] &= uint8_t(~flags);
  using Field = ec::G1Affine::Field;
  Field::LimbArray limbs{};
  static_assert(sizeof(limbs) == kCompressedBytes);
  std::memcpy(limbs.data(), x_bytes.data(), kCompressedBytes);
  if (ff::GreaterOrEqual(limbs, Field::kModulus)) {  // not a field element: no point has it
    throw util::CacheError(path + ": section h48 point " + std::to_string(index) + " has an x that is not reduced");
  }
  ec::G1Affine p{};
  std::memcpy(&p.x, x_bytes.data(), kCompressedBytes);
  const std::optional<ec::G1Affine::Field> y = (p.x.Square() * p.x + ec::G1Curve::kB()).Sqrt();
  if (!y) {
    throw util::CacheError(path + ": section h48 point " + std::to_string(index) + " is not on the curve");
  }
  p = ec::G1Affine::FromXY(p.x, *y);
  const bool larger = (ec::EncodeCompressed(p)[0] & ec::kFlagSort) != 0;
  if (larger != bool(flags & kCompressedLargerY)) p = ec::G1Affine::FromXY(p.x, -*y);
  return p;
}

// Throws unless the flag byte of every record whose flag lies in `bytes`
// (section offset `offset`) is zero; for kHCompressed, unless no record has
// its infinity bit set (the rest is checked where it is decompressed).
void CheckFlags(const std::string& path, KeySection s, uint64_t offset, std::span<const uint8_t> bytes) {
  if (s == KeySection::kHCompressed) {
    for (uint64_t i = (offset + kCompressedBytes - 1) / kCompressedBytes;
         (i + 1) * kCompressedBytes <= offset + bytes.size(); ++i) {
      if (bytes[size_t((i + 1) * kCompressedBytes - 1 - offset)] & kCompressedInfinity)
        KeyImageStream::ThrowFlagSet(path, s, i);
    }
    return;
  }
  const uint64_t r = s == KeySection::kBG2 ? sizeof(ec::G2Affine) : sizeof(ec::G1Affine);
  const uint64_t flag_at = s == KeySection::kBG2 ? kFlagAt<ec::G2Affine> : kFlagAt<ec::G1Affine>;
  const uint64_t end = offset + bytes.size();
  for (uint64_t i = offset > flag_at ? (offset - flag_at + r - 1) / r : 0; i * r + flag_at < end; ++i) {
    if (bytes[size_t(i * r + flag_at - offset)] != 0) KeyImageStream::ThrowFlagSet(path, s, i);
  }
}

template <class Point>
void ReadPoints(const util::CacheReader& r, KeySection section, uint64_t count, const KeyImageReadOptions& o,
                util::OverwriteVector<Point>& points, KeyImageReadStats::Section* times) {
  constexpr uint64_t kBytes = sizeof(Point);
  const std::string name = SectionName(section);
  // Sized from the section before anything is allocated from `count`.
  const util::CacheSection& s = r.Section(name);
  if (count > s.bytes / kBytes || s.bytes != count * kBytes) {
    throw util::CacheError(r.path() + ": section " + std::string(name) + " does not hold " + std::to_string(count) +
                           " points");
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (o.fault_in) {
    points.resize(size_t(count));  // OverwriteVector: no pass over the memory; the reading threads fault it in
  } else {
    // The off switch: every point value-initialised on this thread first,
    // as std::vector's resize does (what the reads waited for before).
    points.resize(size_t(count));
    std::fill(points.begin(), points.end(), Point{});
  }
  const auto t1 = std::chrono::steady_clock::now();
  std::span<uint8_t> dest(reinterpret_cast<uint8_t*>(points.data()), size_t(s.bytes));
  r.ReadSection(name, dest, o.threads,
                [&](uint64_t offset, std::span<const uint8_t> chunk) { CheckFlags(r.path(), section, offset, chunk); });
  if (times) {
    times->size_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    times->read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  }
}

uint64_t HeadTailDigest(int fd, uint64_t size, const std::string& path) {
  constexpr uint64_t kSpan = 1 << 20;
  std::vector<uint8_t> buf(size_t(std::min(size, kSpan)));
  uint64_t d = 0;
  for (uint64_t at : {uint64_t(0), size > kSpan ? size - kSpan : 0}) {
    size_t got = 0;
    while (got < buf.size()) {
      ssize_t n = ::pread(fd, buf.data() + got, buf.size() - got, off_t(at + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::system_error(n < 0 ? errno : EIO, std::generic_category(), path + ": cannot read");
      got += size_t(n);
    }
    d = util::Digest64(buf, d);
  }
  return d;
}

}  // namespace

uint64_t ParamsFileSource(const std::string& params_path) {
  int fd = ::open(params_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), params_path + ": cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw std::system_error(e, std::generic_category(), params_path + ": cannot stat");
  }
  uint64_t fields[6] = {uint64_t(st.st_size), uint64_t(st.st_mtim.tv_sec), uint64_t(st.st_mtim.tv_nsec),
                        uint64_t(st.st_dev),  uint64_t(st.st_ino),         0};
  try {
    fields[5] = HeadTailDigest(fd, uint64_t(st.st_size), params_path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return util::Digest64({reinterpret_cast<const uint8_t*>(fields), sizeof(fields)}, 0x6b657931);
}

uint64_t WriteKeyImage(const ProvingKey& pk, const std::string& path, uint64_t source, const std::atomic<bool>* cancel,
                       KeyImageH h) {
  if (pk.h_form != HQueryForm::kBellperson) throw std::invalid_argument("key images hold bellperson-form keys only");
  if (pk.b_g1.size() != pk.b_g2.size()) throw std::invalid_argument("key has b_g1 and b_g2 of different lengths");
  util::CacheWriter w(path, kKind, source, cancel);
  const Meta meta{pk.h.size(), pk.l.size(), pk.a.size(), pk.b_g1.size()};
  util::AddRecordSection(w, "meta", meta);
  const std::vector<uint8_t> vk = SerializeVerifyingKey(pk.vk);
  w.AddSection("vk", vk.size(), [&](uint64_t offset, std::span<uint8_t> out) {
    std::memcpy(out.data(), vk.data() + offset, out.size());
  });
  // A form left out is a section of no bytes (KeyImageStream::Holds).
  const std::span<const ec::G1Affine> none;
  AddPoints<ec::G1Affine>(w, "h", h == KeyImageH::kCompressed ? none : std::span<const ec::G1Affine>(pk.h));
  AddPoints<ec::G1Affine>(w, "l", pk.l);
  AddPoints<ec::G1Affine>(w, "a", pk.a);
  AddPoints<ec::G1Affine>(w, "b_g1", pk.b_g1);
  AddPoints<ec::G2Affine>(w, "b_g2", pk.b_g2);
  AddCompressedPoints(w, SectionName(KeySection::kHCompressed), h == KeyImageH::kPlain ? none : pk.h);
  w.Commit();
  return w.bytes_written();
}

ProvingKey ReadKeyImage(const std::string& path, uint64_t source, unsigned threads) {
  return ReadKeyImage(path, source, KeyImageReadOptions{.threads = threads});
}

ProvingKey ReadKeyImage(const std::string& path, uint64_t source, const KeyImageReadOptions& options) {
  util::CacheReader r(path, kKind, source);
  const Meta meta = util::ReadRecordSection<Meta>(r, "meta");
  if (meta.h > 0 && r.Section(SectionName(KeySection::kH)).bytes == 0 &&
      r.Section(SectionName(KeySection::kHCompressed)).bytes == meta.h * kCompressedBytes) {
    throw KeyImageWithoutPlainH(path + ": holds H compressed only (written for GPUs that decompress it)");
  }
  ProvingKey pk;
  try {
    pk.vk = ParseVerifyingKey(r.SectionBytes("vk"), path);
  } catch (const std::exception& e) {
    throw util::CacheError(path + ": verifying key section: " + e.what());
  }
  pk.h_form = HQueryForm::kBellperson;
  // The sections at the same time, each sized without a pass over its
  // memory (util::OverwriteVector): the reading threads fault its pages in.
  // A one-thread sizing pass (std::vector's resize) cost more than the reads:
  // 8.3 s for the 14 GB H section of a 32 GiB key on fresh memory.
  KeyImageReadStats* st = options.stats;
  auto section = [&](KeySection name, uint64_t count, auto& points, KeyImageReadStats::Section* times) {
    return std::async(std::launch::async, [&r, name, count, &options, &points, times] {
      ReadPoints(r, name, count, options, points, times);
    });
  };
  std::future<void> parts[] = {section(KeySection::kH, meta.h, pk.h, st ? &st->h : nullptr),
                               section(KeySection::kL, meta.l, pk.l, st ? &st->l : nullptr),
                               section(KeySection::kA, meta.a, pk.a, st ? &st->a : nullptr),
                               section(KeySection::kBG1, meta.b, pk.b_g1, st ? &st->b_g1 : nullptr),
                               section(KeySection::kBG2, meta.b, pk.b_g2, st ? &st->b_g2 : nullptr)};
  for (auto& part : parts) part.get();  // rethrows the first failure (the futures wait for the rest)
  return pk;
}

struct KeyImageStream::Impl {
  Impl(const std::string& path, uint64_t source) : reader(path, kKind, source) {
    meta = util::ReadRecordSection<Meta>(reader, "meta");
    for (KeySection s : {KeySection::kH, KeySection::kL, KeySection::kA, KeySection::kBG1, KeySection::kBG2,
                         KeySection::kHCompressed}) {
      const uint64_t n = Count(s), bytes = reader.Section(SectionName(s)).bytes;
      if (bytes == 0 && LeftOut(s)) continue;
      if (n > bytes / RecordBytes(s) || bytes != n * RecordBytes(s)) {
        throw util::CacheError(path + ": section " + SectionName(s) + " does not hold " + std::to_string(n) +
                               " points");
      }
    }
  }
  // An H form the writer left out (KeyImageH): its section has no bytes,
  // the other form's has them all.
  bool LeftOut(KeySection s) const {
    if (s != KeySection::kH && s != KeySection::kHCompressed) return false;
    const KeySection other = s == KeySection::kH ? KeySection::kHCompressed : KeySection::kH;
    return meta.h > 0 && reader.Section(SectionName(s)).bytes == 0 &&
           reader.Section(SectionName(other)).bytes == meta.h * RecordBytes(other);
  }
  uint64_t Count(KeySection s) const {
    switch (s) {
      case KeySection::kH:
      case KeySection::kHCompressed: return meta.h;
      case KeySection::kL: return meta.l;
      case KeySection::kA: return meta.a;
      case KeySection::kBG1:
      case KeySection::kBG2: return meta.b;
    }
    return 0;
  }
  // Sizes `points` and reads its first and last point (flags checked).
  template <class Point>
  void ShellOf(KeySection s, util::OverwriteVector<Point>& points) const {
    points.resize(size_t(Count(s)));  // reserved, not touched
    if (points.empty()) return;
    if constexpr (std::is_same_v<Point, ec::G1Affine>) {
      if (LeftOut(s)) {  // plain H left out: its ends from the compressed records
        for (size_t i : {size_t(0), points.size() - 1}) {
          std::array<uint8_t, kCompressedBytes> rec{};
          reader.ReadUnchecked(SectionName(KeySection::kHCompressed), uint64_t(i) * kCompressedBytes, rec);
          points[i] = DecompressRecord(reader.path(), i, rec);
        }
        return;
      }
    }
    for (size_t i : {size_t(0), points.size() - 1}) {
      std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(&points[i]), sizeof(Point));
      reader.ReadUnchecked(SectionName(s), uint64_t(i) * sizeof(Point), bytes);
      CheckFlags(reader.path(), s, uint64_t(i) * sizeof(Point), bytes);
    }
  }

  util::CacheReader reader;
  Meta meta{};
};

size_t KeyImageStream::RecordBytes(KeySection s) {
  if (s == KeySection::kHCompressed) return kCompressedBytes;
  return s == KeySection::kBG2 ? sizeof(ec::G2Affine) : sizeof(ec::G1Affine);
}
size_t KeyImageStream::BufferBytes() { return size_t(util::kCacheChunkBytes); }
const char* KeyImageStream::Name(KeySection s) { return SectionName(s); }
void KeyImageStream::ThrowFlagSet(const std::string& path, KeySection s, uint64_t point) {
  throw util::CacheError(path + ": section " + SectionName(s) + " point " + std::to_string(point) +
                         " is not a finite point");
}
size_t KeyImageStream::FlagOffset(KeySection s) {
  if (s == KeySection::kHCompressed) throw std::invalid_argument("key image section h48 has no flag byte");
  return s == KeySection::kBG2 ? kFlagAt<ec::G2Affine> : kFlagAt<ec::G1Affine>;
}

KeyImageStream::KeyImageStream(const std::string& path, uint64_t source)
    : impl_(std::make_unique<Impl>(path, source)) {}
KeyImageStream::~KeyImageStream() = default;

uint64_t KeyImageStream::Count(KeySection section) const { return impl_->Count(section); }
bool KeyImageStream::Holds(KeySection section) const { return !impl_->LeftOut(section); }
const std::string& KeyImageStream::path() const { return impl_->reader.path(); }

double KeyImageStream::ResidentShare(KeySection section) const {
  const util::CacheSection& s = impl_->reader.Section(SectionName(section));
  return util::ResidentShare(impl_->reader.path(), s.offset, s.bytes);
}

ProvingKey KeyImageStream::Shell() const {
  ProvingKey pk;
  try {
    pk.vk = ParseVerifyingKey(impl_->reader.SectionBytes("vk"), path());
  } catch (const std::exception& e) {
    throw util::CacheError(path() + ": verifying key section: " + e.what());
  }
  pk.h_form = HQueryForm::kBellperson;
  impl_->ShellOf(KeySection::kH, pk.h);
  impl_->ShellOf(KeySection::kL, pk.l);
  impl_->ShellOf(KeySection::kA, pk.a);
  impl_->ShellOf(KeySection::kBG1, pk.b_g1);
  impl_->ShellOf(KeySection::kBG2, pk.b_g2);
  return pk;
}

void KeyImageStream::Stream(KeySection section, unsigned threads, const Buffer& buffer, const Records& records,
                            FlagCheck flags) const {
  const uint64_t r = RecordBytes(section);
  const util::CacheReader& reader = impl_->reader;
  const std::string name = SectionName(section);
  if (!Holds(section)) throw util::CacheError(path() + ": section " + name + " was left out of this image");
  const uint64_t bytes = reader.Section(name).bytes;
  const uint64_t chunk_bytes = util::kCacheChunkBytes;
  // Records cut by a chunk edge (the chunk is not a multiple of 104 or 200
  // bytes): both sides copy their part here, one record per edge.
  const uint64_t edges = bytes == 0 ? 0 : (bytes - 1) / chunk_bytes;
  std::vector<uint8_t> cut(size_t(edges * r));
  reader.StreamSection(
      name, threads,
      [&](unsigned worker, uint64_t, size_t n) {
        std::span<uint8_t> b = buffer(worker);
        if (b.size() < n) throw std::logic_error("KeyImageStream::Stream: a buffer smaller than BufferBytes()");
        return b.first(n);
      },
      [&](unsigned worker, uint64_t offset, std::span<const uint8_t> chunk) {
        const uint64_t end = offset + chunk.size();
        const uint64_t first = (offset + r - 1) / r, last = end / r;  // whole records [first, last)
        if (offset % r != 0) {  // the tail of the record cut by this chunk's first edge
          const uint64_t edge = offset / chunk_bytes - 1, at = offset % r;
          std::memcpy(cut.data() + edge * r + at, chunk.data(), size_t(std::min(r - at, uint64_t(chunk.size()))));
        }
        if (end % r != 0 && end < bytes) {  // the head of the record cut by its last edge
          const uint64_t edge = end / chunk_bytes - 1, from = last * r;
          std::memcpy(cut.data() + edge * r, chunk.data() + (from - offset), size_t(end - from));
        }
        if (last <= first) return;
        const std::span<const uint8_t> whole = chunk.subspan(size_t(first * r - offset), size_t((last - first) * r));
        if (flags == FlagCheck::kHere) CheckFlags(reader.path(), section, first * r, whole);
        records(worker, first, whole);
      });
  // Every chunk's digest matched: the cut records are whole and checked.
  for (uint64_t edge = 0; edge < edges; ++edge) {
    const uint64_t at = (edge + 1) * chunk_bytes;
    if (at % r == 0) continue;
    const uint64_t index = at / r;
    const std::span<const uint8_t> rec(cut.data() + edge * r, size_t(r));
    if (flags == FlagCheck::kHere) CheckFlags(reader.path(), section, index * r, rec);
    std::span<uint8_t> b = buffer(0);
    std::memcpy(b.data(), rec.data(), rec.size());
    records(0, index, b.first(size_t(r)));
  }
}

}  // namespace cuzk::groth16
