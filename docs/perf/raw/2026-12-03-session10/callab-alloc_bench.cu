// How fast can 1.5 GB of page-locked host memory be made (and freed)? Session 10 scratch bench.
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
static double Ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
#define CK(x)                                             \
  do {                                                    \
    cudaError_t e = (x);                                  \
    if (e != cudaSuccess) {                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e)); \
    }                                                     \
  } while (0)
constexpr size_t kChunk = size_t(48) << 20;
void HostAllocMany(int n, bool parallel) {
  std::vector<void*> p(n, nullptr);
  auto t0 = std::chrono::steady_clock::now();
  if (parallel) {
    std::vector<std::thread> ts;
    for (int i = 0; i < n; ++i) ts.emplace_back([&, i] { CK(cudaHostAlloc(&p[i], kChunk, cudaHostAllocDefault)); });
    for (auto& t : ts) t.join();
  } else {
    for (int i = 0; i < n; ++i) CK(cudaHostAlloc(&p[i], kChunk, cudaHostAllocDefault));
  }
  double a = Ms(t0);
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) CK(cudaFreeHost(p[i]));
  std::printf("cudaHostAlloc %d x 48 MiB %s: alloc %.0f ms, free %.0f ms\n", n, parallel ? "parallel" : "serial", a,
              Ms(t0));
}
void HostAllocOne(size_t bytes) {
  void* p = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  CK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
  double a = Ms(t0);
  t0 = std::chrono::steady_clock::now();
  CK(cudaFreeHost(p));
  std::printf("cudaHostAlloc 1 x %zu MiB: alloc %.0f ms, free %.0f ms\n", bytes >> 20, a, Ms(t0));
}
void Registered(size_t bytes, int mode) {  // 0: plain populate, 1: THP madvise + touch, 2: MAP_HUGETLB
  auto t0 = std::chrono::steady_clock::now();
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (mode == 0) flags |= MAP_POPULATE;
  if (mode == 2) flags |= MAP_HUGETLB | MAP_POPULATE;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    std::printf("mode %d: mmap failed\n", mode);
    return;
  }
  if (mode == 1) {
    madvise(p, bytes, MADV_HUGEPAGE);
    for (size_t o = 0; o < bytes; o += 4096) static_cast<volatile char*>(p)[o] = 0;
  }
  double m = Ms(t0);
  t0 = std::chrono::steady_clock::now();
  CK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
  double r = Ms(t0);
  // an H2D from it, to see it works at speed
  void* d = nullptr;
  CK(cudaMalloc(&d, bytes));
  t0 = std::chrono::steady_clock::now();
  CK(cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice));
  double c = Ms(t0);
  CK(cudaFree(d));
  t0 = std::chrono::steady_clock::now();
  CK(cudaHostUnregister(p));
  double u = Ms(t0);
  munmap(p, bytes);
  std::printf(
      "mmap mode %d (%s) %zu MiB: map+fault %.0f ms, register %.0f ms, H2D %.0f ms (%.1f GB/s), unregister %.0f ms\n",
      mode,
      mode == 0   ? "populate"
      : mode == 1 ? "THP madvise+touch"
                  : "MAP_HUGETLB",
      bytes >> 20, m, r, c, bytes / c / 1e6, u);
}
int main() {
  CK(cudaFree(nullptr));
  const size_t total = 32 * kChunk;
  for (int rep = 0; rep < 2; ++rep) {
    HostAllocMany(32, false);
    HostAllocMany(32, true);
    HostAllocMany(16, false);
    HostAllocOne(total);
    Registered(total, 0);
    Registered(total, 1);
    Registered(total, 2);
  }
  return 0;
}
