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
#include <span>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <vector>

#include "engine/groth16/params_io.hpp"
#include "engine/util/cache_arrays.hpp"
#include "engine/util/cache_file.hpp"
#include "engine/util/fault_in.hpp"

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

template <class Point>
void ReadPoints(const util::CacheReader& r, std::string_view name, uint64_t count, const KeyImageReadOptions& o,
                util::OverwriteVector<Point>& points, KeyImageReadStats::Section* times) {
  constexpr uint64_t kBytes = sizeof(Point);
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
  r.ReadSection(name, dest, o.threads, [&](uint64_t offset, std::span<const uint8_t> chunk) {
    // The flag bytes that fall in this chunk.
    const uint64_t end = offset + chunk.size();
    for (uint64_t i = offset > kFlagAt<Point> ? (offset - kFlagAt<Point> + kBytes - 1) / kBytes : 0;
         i * kBytes + kFlagAt<Point> < end; ++i) {
      if (chunk[size_t(i * kBytes + kFlagAt<Point> - offset)] != 0) {
        throw util::CacheError(r.path() + ": section " + std::string(name) + " point " + std::to_string(i) +
                               " is not a finite point");
      }
    }
  });
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

uint64_t WriteKeyImage(const ProvingKey& pk, const std::string& path, uint64_t source,
                       const std::atomic<bool>* cancel) {
  if (pk.h_form != HQueryForm::kBellperson) throw std::invalid_argument("key images hold bellperson-form keys only");
  if (pk.b_g1.size() != pk.b_g2.size()) throw std::invalid_argument("key has b_g1 and b_g2 of different lengths");
  util::CacheWriter w(path, kKind, source, cancel);
  const Meta meta{pk.h.size(), pk.l.size(), pk.a.size(), pk.b_g1.size()};
  util::AddRecordSection(w, "meta", meta);
  const std::vector<uint8_t> vk = SerializeVerifyingKey(pk.vk);
  w.AddSection("vk", vk.size(), [&](uint64_t offset, std::span<uint8_t> out) {
    std::memcpy(out.data(), vk.data() + offset, out.size());
  });
  AddPoints<ec::G1Affine>(w, "h", pk.h);
  AddPoints<ec::G1Affine>(w, "l", pk.l);
  AddPoints<ec::G1Affine>(w, "a", pk.a);
  AddPoints<ec::G1Affine>(w, "b_g1", pk.b_g1);
  AddPoints<ec::G2Affine>(w, "b_g2", pk.b_g2);
  w.Commit();
  return w.bytes_written();
}

ProvingKey ReadKeyImage(const std::string& path, uint64_t source, unsigned threads) {
  return ReadKeyImage(path, source, KeyImageReadOptions{.threads = threads});
}

ProvingKey ReadKeyImage(const std::string& path, uint64_t source, const KeyImageReadOptions& options) {
  util::CacheReader r(path, kKind, source);
  const Meta meta = util::ReadRecordSection<Meta>(r, "meta");
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
  auto section = [&](std::string_view name, uint64_t count, auto& points, KeyImageReadStats::Section* times) {
    return std::async(std::launch::async, [&r, name, count, &options, &points, times] {
      ReadPoints(r, name, count, options, points, times);
    });
  };
  std::future<void> parts[] = {
      section("h", meta.h, pk.h, st ? &st->h : nullptr), section("l", meta.l, pk.l, st ? &st->l : nullptr),
      section("a", meta.a, pk.a, st ? &st->a : nullptr), section("b_g1", meta.b, pk.b_g1, st ? &st->b_g1 : nullptr),
      section("b_g2", meta.b, pk.b_g2, st ? &st->b_g2 : nullptr)};
  for (auto& part : parts) part.get();  // rethrows the first failure (the futures wait for the rest)
  return pk;
}

}  // namespace cuzk::groth16
