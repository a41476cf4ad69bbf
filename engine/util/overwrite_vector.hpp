#pragma once
// OverwriteVector<T>: a std::vector of trivially copyable records whose
// resize does not initialise the new elements, for large arrays that are
// written whole right after they are sized (a key's points read from an
// image or decoded from a .params file, on many threads).
//
// Why: std::vector::resize value-initialises every new element on the
// calling thread. For a 32 GiB key's H section (14 GB) that one-thread pass
// cost 2.25 s on resident memory and 8.3 s on fresh memory, where the reads
// into it take 0.6-0.8 s on 16 threads (`cuzk-bench host-fill` on the H200,
// docs/perf/gpu.md). With this allocator the sizing is an allocation, and
// the writing threads fault the pages in themselves.
//
// The cost of it: after resize(n) the new elements hold whatever the memory
// held (zero on fresh pages, anything on reused ones) until written, so
// every resize must be followed by writes to every new element. Copies,
// push_back and construction from values are ordinary.
//
//   util::OverwriteVector<ec::G1Affine> h;
//   h.resize(n);                      // no pass over the memory
//   reader.ReadInto(h.data(), n);     // every element written, in parallel
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuzk::util {

template <class T>
struct OverwriteAllocator {
  using value_type = T;
  OverwriteAllocator() = default;
  template <class U>
  constexpr OverwriteAllocator(const OverwriteAllocator<U>&) noexcept {}

  T* allocate(size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }

  // Value-initialisation (resize, vector(n)) leaves the element unwritten:
  // the storage of a trivially copyable type already holds an object of it
  // (implicit object creation), whose value the caller writes next.
  template <class U>
  void construct(U*) noexcept {
    static_assert(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>,
                  "OverwriteAllocator is for trivially copyable records");
  }
  template <class U, class A0, class... A>
  void construct(U* p, A0&& a0, A&&... a) {
    std::construct_at(p, std::forward<A0>(a0), std::forward<A>(a)...);
  }

  template <class U>
  friend constexpr bool operator==(const OverwriteAllocator&, const OverwriteAllocator<U>&) noexcept {
    return true;
  }
};

template <class T>
using OverwriteVector = std::vector<T, OverwriteAllocator<T>>;

}  // namespace cuzk::util
