#pragma once
// Page-locked host bytes made from anonymous memory backed by transparent
// huge pages (mmap, madvise(MADV_HUGEPAGE), each page touched) and then
// registered with CUDA (cudaHostRegister), instead of cudaHostAlloc. Copies
// from it run at line rate as from cudaHostAlloc'd memory; making and freeing
// it is what differs. H200 host, 1.5 GB (docs/perf/gpu.md, session 10):
//   cudaHostAlloc                      670-840 ms to make, 180-230 ms to free
//   mmap + MAP_POPULATE (4 KiB pages)  543-556 ms of faults + 71 ms to register
//   huge pages touched (this)          271-292 ms of faults + 38 ms to register, 29 ms to unregister
// Where the kernel gives no huge pages (transparent_hugepage "never"), the
// pages are 4 KiB and it costs what MAP_POPULATE does: still less than
// cudaHostAlloc. Not for memory that must be portable across devices.
//
//   cuda::RegisteredBuffer buf(48 << 20);   // std::bad_alloc / CudaError when it cannot be made
//   cudaMemcpyAsync(dev, buf.data(), buf.size(), cudaMemcpyHostToDevice, stream);
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"

namespace cuzk::cuda {

class RegisteredBuffer {
 public:
  static constexpr size_t kHugePage = size_t(2) << 20;

  RegisteredBuffer() = default;
  explicit RegisteredBuffer(size_t bytes) {
    if (bytes == 0) return;
    // A huge page must be 2 MiB-aligned: map one more and start at the first boundary.
    const size_t mapped = (bytes + kHugePage - 1) / kHugePage * kHugePage + kHugePage;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~uintptr_t(kHugePage - 1);
    uint8_t* data = reinterpret_cast<uint8_t*>(start);
    ::madvise(data, mapped - (start - reinterpret_cast<uintptr_t>(p)), MADV_HUGEPAGE);  // best effort
    // Faulted in here, one write a base page (a huge page takes the first;
    // the rest then hit present memory), rather than inside the driver's
    // registration, which would hold its lock meanwhile.
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    for (size_t off = 0; off < bytes; off += page) reinterpret_cast<volatile uint8_t*>(data)[off] = 0;
    const cudaError_t st = cudaHostRegister(data, bytes, cudaHostRegisterDefault);
    if (st != cudaSuccess) {
      ::munmap(p, mapped);
      throw CudaError(st, "cudaHostRegister", __FILE__, __LINE__);
    }
    map_ = p, mapped_ = mapped, data_ = data, size_ = bytes;
  }
  ~RegisteredBuffer() { Reset(); }
  RegisteredBuffer(RegisteredBuffer&& o) noexcept
      : map_(std::exchange(o.map_, nullptr)),
        mapped_(std::exchange(o.mapped_, 0)),
        data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  RegisteredBuffer& operator=(RegisteredBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      map_ = std::exchange(o.map_, nullptr);
      mapped_ = std::exchange(o.mapped_, 0);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  RegisteredBuffer(const RegisteredBuffer&) = delete;
  RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  void Reset() {
    if (data_) {
      internal::ReportReleaseError(cudaHostUnregister(data_), "cudaHostUnregister");
      ::munmap(map_, mapped_);
    }
    map_ = nullptr, mapped_ = 0, data_ = nullptr, size_ = 0;
  }

 private:
  void* map_ = nullptr;  // the whole mapping (data_ is its first 2 MiB boundary)
  size_t mapped_ = 0;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cuzk::cuda
