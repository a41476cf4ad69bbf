// Scratch experiment: page-cache file -> GPU. (a) pread into pinned buffers + H2D (the key image path),
// (b) mmap + cudaHostRegister(ReadOnly) per chunk + H2D straight from the page cache, (b+r) (b) with a CPU
// read pass over the same bytes beside it (the digest's memory traffic).
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e = (x);                                                            \
    if (e != cudaSuccess) {                                                         \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)
using Clock = std::chrono::steady_clock;
static double Ms(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int main(int argc, char** argv) {
  const char* path = argv[1];
  const size_t gb = std::atoll(argv[2]);
  const unsigned T = std::atoi(argv[3]);
  const size_t bytes = gb << 30;
  struct stat st {};
  if (stat(path, &st) != 0 || size_t(st.st_size) != bytes) {
    auto t = Clock::now();
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    std::vector<uint64_t> buf((64u << 20) / 8);
    uint64_t x = 88172645463325252ull;
    for (auto& v : buf) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v = x;
    }
    for (size_t off = 0; off < bytes; off += buf.size() * 8) {
      buf[0] = off;
      if (write(fd, buf.data(), buf.size() * 8) < 0) return 2;
    }
    close(fd);
    std::printf("wrote %zu GiB in %.0f ms\n", gb, Ms(t));
  }
  int fd = open(path, O_RDONLY);
  CK(cudaSetDevice(0));
  CK(cudaFree(nullptr));
  const size_t kChunk = 48u << 20;
  // (a) pread -> pinned -> device
  {
    std::vector<void*> pinned(2 * T), dev(2 * T);
    auto t0 = Clock::now();
    for (auto& p : pinned) CK(cudaHostAlloc(&p, kChunk, cudaHostAllocDefault));
    for (auto& d : dev) CK(cudaMalloc(&d, kChunk));
    double alloc = Ms(t0);
    std::atomic<size_t> next{0};
    auto t = Clock::now();
    std::vector<std::thread> th;
    for (unsigned w = 0; w < T; ++w)
      th.emplace_back([&, w] {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        cudaEvent_t ev[2];
        cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming);
        cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming);
        bool used[2] = {false, false};
        for (unsigned k = 0;; ++k) {
          size_t off = next.fetch_add(kChunk);
          if (off >= bytes) break;
          size_t n = std::min(kChunk, bytes - off);
          int b = k & 1;
          if (used[b]) cudaEventSynchronize(ev[b]);
          size_t got = 0;
          while (got < n) {
            ssize_t r = pread(fd, (char*)pinned[2 * w + b] + got, n - got, off + got);
            if (r <= 0) break;
            got += r;
          }
          uint64_t sum = 0;
          const uint64_t* p = (const uint64_t*)pinned[2 * w + b];
          for (size_t i = 0; i < n / 8; ++i) sum += p[i];
          if (sum == 42) std::printf("!");
          cudaMemcpyAsync(dev[2 * w + b], pinned[2 * w + b], n, cudaMemcpyHostToDevice, s);
          cudaEventRecord(ev[b], s);
          used[b] = true;
        }
        cudaStreamSynchronize(s);
      });
    for (auto& x : th) x.join();
    double ms = Ms(t);
    std::printf("(a) pread+sum->pinned->H2D T=%u: %.0f ms, %.2f GB/s (buffers %.0f ms)\n", T, ms, bytes / ms / 1e6,
                alloc);
    for (auto& p : pinned) cudaFreeHost(p);
    for (auto& d : dev) cudaFree(d);
  }
  const uint8_t* map = (const uint8_t*)mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    std::printf("mmap failed\n");
    return 3;
  }
  for (size_t reg : {size_t(256) << 20, size_t(1) << 30})
    for (int read_pass = 0; read_pass < 2; ++read_pass) {
      std::vector<void*> dev(T);
      for (auto& d : dev) CK(cudaMalloc(&d, reg));
      std::atomic<size_t> next{0};
      std::atomic<long> reg_us{0}, unreg_us{0}, fail{0};
      auto t = Clock::now();
      std::vector<std::thread> th;
      for (unsigned w = 0; w < T; ++w)
        th.emplace_back([&, w] {
          cudaStream_t s;
          cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
          for (;;) {
            size_t off = next.fetch_add(reg);
            if (off >= bytes) break;
            size_t n = std::min(reg, bytes - off);
            auto t1 = Clock::now();
            cudaError_t e = cudaHostRegister((void*)(map + off), n, cudaHostRegisterReadOnly);
            reg_us += long(Ms(t1) * 1000);
            if (e != cudaSuccess) {
              if (fail++ == 0) std::printf("register failed: %s\n", cudaGetErrorString(e));
              cudaGetLastError();
              continue;
            }
            cudaMemcpyAsync(dev[w], map + off, n, cudaMemcpyHostToDevice, s);
            if (read_pass) {
              uint64_t sum = 0;
              const uint64_t* p = (const uint64_t*)(map + off);
              for (size_t i = 0; i < n / 8; ++i) sum += p[i];
              if (sum == 42) std::printf("!");
            }
            cudaStreamSynchronize(s);
            auto t2 = Clock::now();
            cudaHostUnregister((void*)(map + off));
            unreg_us += long(Ms(t2) * 1000);
          }
        });
      for (auto& x : th) x.join();
      double ms = Ms(t);
      std::printf(
          "(b%s) mmap+register %zu MiB chunks->H2D T=%u: %.0f ms, %.2f GB/s, register %.0f ms, unregister %.0f ms "
          "(thread sums), failures %ld\n",
          read_pass ? "+read" : "", reg >> 20, T, ms, bytes / ms / 1e6, reg_us / 1000.0, unreg_us / 1000.0,
          fail.load());
      for (auto& d : dev) cudaFree(d);
    }
  return 0;
}
