#pragma once
// ParallelFor: split [0, n) into contiguous chunks and run them on up to
// `threads` threads (0 = all hardware threads). The calling thread takes the
// first chunk, so threads == 1 never spawns. Exceptions from any chunk are
// rethrown on the caller (the first one wins).
#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk::util {

inline unsigned ResolveThreads(unsigned requested) {
  if (requested) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

// body(begin, end, chunk_index) is called once per chunk.
template <class Body>
void ParallelForChunks(size_t n, unsigned threads, Body&& body) {
  if (n == 0) return;
  size_t chunks = std::min<size_t>(ResolveThreads(threads), n);
  if (chunks == 1) {
    body(size_t(0), n, size_t(0));
    return;
  }
  std::exception_ptr error;
  std::mutex error_mu;
  auto run = [&](size_t c) {
    size_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    try {
      body(begin, end, c);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(chunks - 1);
  for (size_t c = 1; c < chunks; ++c) pool.emplace_back(run, c);
  run(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// body(i) for every i in [0, n).
template <class Body>
void ParallelFor(size_t n, unsigned threads, Body&& body) {
  ParallelForChunks(n, threads, [&](size_t b, size_t e, size_t) {
    for (size_t i = b; i < e; ++i) body(i);
  });
}

}  // namespace cuzk::util
