#pragma once
// Whole std::vector sections of cache files (cache_file.hpp), for images
// whose sections are arrays of trivially copyable records (circuit and
// compact circuit images), and single-record sections (every image's
// "meta": its counts).
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/util/cache_file.hpp"
#include "engine/util/fault_in.hpp"

namespace cuzk::util {

template <class T, class A>
void AddArraySection(CacheWriter& w, const std::string& name, const std::vector<T, A>& v) {
  static_assert(std::is_trivially_copyable_v<T> && kCacheChunkBytes % sizeof(T) == 0);
  w.AddSection(name, v.size() * sizeof(T), [&](uint64_t offset, std::span<uint8_t> out) {
    std::memcpy(out.data(), reinterpret_cast<const uint8_t*>(v.data()) + offset, out.size());
  });
}

// Copies a section into `v` (sized from the section, which must hold
// `count` elements); check(first, elements) runs on each chunk as it lands,
// on the reading threads (it may throw CacheError to refuse the chunk).
template <class T, class A, class Check>
void ReadArraySection(const CacheReader& r, const std::string& name, uint64_t count, unsigned threads,
                      std::vector<T, A>& v, Check check) {
  const CacheSection& s = r.Section(name);
  if (count > s.bytes / sizeof(T) || s.bytes != count * sizeof(T)) {
    throw CacheError(r.path() + ": section " + name + " does not hold " + std::to_string(count) + " elements");
  }
  ResizeFaultedIn(v, size_t(count), threads);  // pages faulted in on the reading threads, not on this one
  std::span<uint8_t> dest(reinterpret_cast<uint8_t*>(v.data()), size_t(s.bytes));
  r.ReadSection(name, dest, threads, [&](uint64_t offset, std::span<const uint8_t> in) {
    // Chunks hold whole elements (kCacheChunkBytes is a multiple of sizeof(T)).
    check(size_t(offset / sizeof(T)), std::span<const T>(v.data() + offset / sizeof(T), in.size() / sizeof(T)));
  });
}

template <class T>
void AddRecordSection(CacheWriter& w, const std::string& name, const T& record) {
  static_assert(std::is_trivially_copyable_v<T>);
  w.AddSection(name, sizeof(T), [&](uint64_t, std::span<uint8_t> out) { std::memcpy(out.data(), &record, sizeof(T)); });
}

// CacheError unless the section holds exactly one T (digest checked).
template <class T>
T ReadRecordSection(const CacheReader& r, const std::string& name) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::vector<uint8_t> bytes = r.SectionBytes(name);
  if (bytes.size() != sizeof(T)) throw CacheError(r.path() + ": " + name + " section of the wrong size");
  T record;
  std::memcpy(&record, bytes.data(), sizeof(T));
  return record;
}

}  // namespace cuzk::util
