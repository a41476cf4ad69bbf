#pragma once
// Sizing a large std::vector that is about to be overwritten (an image
// section read from the page cache): its pages faulted in on many threads
// first. For the arrays that matter most (a key's points, a circuit's
// matrices) util::OverwriteVector does better: its sizing writes nothing,
// and the reading threads fault the pages in as they write.
//
// Why: std::vector::resize value-initialises every element on the calling
// thread, and on fresh memory each 4 KiB page costs a fault and a zeroing by
// the kernel on that thread. For a 32 GiB key image's H section (14 GB) that
// one thread was most of the key's read time, the reading threads waiting
// for it (cuzk-bench host-fill measures each step on the host). Faulting the
// reserved pages in on `threads` threads (MADV_POPULATE_WRITE, or a write per
// page on kernels without it) leaves resize a plain pass over resident
// memory.
//
//   std::vector<uint16_t> codes;                 // a compact circuit's
//   util::ResizeFaultedIn(codes, n, 16);         // == codes.resize(n), faster on fresh memory
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/util/overwrite_vector.hpp"
#include "engine/util/parallel.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it (EINVAL)
#endif

namespace cuzk::util {

// Faults in the whole pages of [p, p + bytes) for writing, on up to
// `threads` threads (0 = all). Contents are unspecified afterwards (memory
// that was never written reads as zero): callers write it next.
inline void FaultInForWrite(void* p, size_t bytes, unsigned threads) {
  const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (uintptr_t(p) + page - 1) & ~(page - 1), end = (uintptr_t(p) + bytes) & ~(page - 1);
  if (end <= begin) return;
  constexpr uintptr_t kPiece = uintptr_t(64) << 20;  // per task: large enough that a thread's call is cheap
  const size_t pieces = size_t((end - begin + kPiece - 1) / kPiece);
  ParallelFor(pieces, std::min<unsigned>(ResolveThreads(threads), unsigned(std::min<size_t>(pieces, 64))),
              [&](size_t i) {
                auto* at = reinterpret_cast<uint8_t*>(begin + i * kPiece);
                const size_t len = size_t(std::min(kPiece, end - (begin + i * kPiece)));
                if (::madvise(at, len, MADV_POPULATE_WRITE) == 0) return;
                for (size_t o = 0; o < len; o += page) reinterpret_cast<volatile uint8_t*>(at)[o] = 0;
              });
}

// v.resize(n) for an empty v, with the new storage faulted in on `threads`
// threads before the elements are constructed. An OverwriteVector is only
// sized: its resize constructs nothing, and its writers fault the pages in
// as they write (on the H200, 16 threads pread 14 GB into fresh memory in
// 0.83 s, against 1.08 s to fault it in first and 0.48 s to read into it
// after).
template <class T, class A>
void ResizeFaultedIn(std::vector<T, A>& v, size_t n, unsigned threads) {
  if constexpr (!std::is_same_v<A, OverwriteAllocator<T>>) {
    if (v.empty() && n * sizeof(T) >= (size_t(64) << 20)) {
      v.reserve(n);
      FaultInForWrite(v.data(), n * sizeof(T), threads);
    }
  }
  v.resize(n);
}

}  // namespace cuzk::util
