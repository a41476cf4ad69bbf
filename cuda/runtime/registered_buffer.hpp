#pragma once
// Page-locked host bytes made by mapping anonymous memory (its pages faulted
// in by the kernel, MAP_POPULATE) and registering it with CUDA
// (cudaHostRegister), instead of cudaHostAlloc. Copies from it run at line
// rate as from cudaHostAlloc'd memory; making it is what differs: on the
// H200 host cudaHostAlloc made the key image upload's 32 x 48 MiB in
// 0.86-1.16 s (~1.5 GB/s), while registering 16 GiB of already-present pages
// took 0.5-1.6 s of thread time in all (docs/perf/gpu.md, session 9 call 2).
// A 32 GiB load that starts with the daemon (srs.preload) waited ~0.8 s for
// its buffers. Not for memory that must be portable across devices.
//
//   cuda::RegisteredBuffer buf(48 << 20);   // std::bad_alloc / CudaError when it cannot be made
//   cudaMemcpyAsync(dev, buf.data(), buf.size(), cudaMemcpyHostToDevice, stream);
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"

namespace cuzk::cuda {

class RegisteredBuffer {
 public:
  RegisteredBuffer() = default;
  explicit RegisteredBuffer(size_t bytes) : size_(bytes) {
    if (bytes == 0) return;
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const cudaError_t st = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    if (st != cudaSuccess) {
      ::munmap(p, bytes);
      CUZK_CUDA_CHECK(st);
    }
    ptr_ = static_cast<uint8_t*>(p);
  }
  ~RegisteredBuffer() { Reset(); }
  RegisteredBuffer(RegisteredBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  RegisteredBuffer& operator=(RegisteredBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  RegisteredBuffer(const RegisteredBuffer&) = delete;
  RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;

  uint8_t* data() const { return ptr_; }
  size_t size() const { return size_; }

  void Reset() {
    if (ptr_) {
      internal::ReportReleaseError(cudaHostUnregister(ptr_), "cudaHostUnregister");
      ::munmap(ptr_, size_);
    }
    ptr_ = nullptr;
    size_ = 0;
  }

 private:
  uint8_t* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cuzk::cuda
