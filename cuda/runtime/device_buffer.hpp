#pragma once
// RAII owners of CUDA resources: device memory, page-locked host memory,
// streams and events. Move-only; destructors release and never throw (a
// failure there is printed, since by then there is no caller to tell).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <utility>

#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {

namespace internal {
inline void ReportReleaseError(cudaError_t st, const char* what) {
  if (st != cudaSuccess) std::fprintf(stderr, "cuzk: %s failed: %s\n", what, cudaGetErrorString(st));
}
}  // namespace internal

// count elements of T in device memory (cudaMalloc: 256-byte aligned).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : size_(count) {
    if (count) CUZK_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  ~DeviceBuffer() { Reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return ptr_; }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }

  void Reset() {
    if (ptr_) internal::ReportReleaseError(cudaFree(ptr_), "cudaFree");
    ptr_ = nullptr;
    size_ = 0;
  }

  // Asynchronous copies on `stream` (synchronous w.r.t. the host when the
  // host memory is pageable).
  void CopyFromHost(std::span<const T> src, cudaStream_t stream, size_t offset = 0) {
    if (offset + src.size() > size_) throw std::out_of_range("DeviceBuffer::CopyFromHost past the end");
    CUZK_CUDA_CHECK(cudaMemcpyAsync(ptr_ + offset, src.data(), src.size_bytes(), cudaMemcpyHostToDevice, stream));
  }
  void CopyToHost(std::span<T> dst, cudaStream_t stream, size_t offset = 0) const {
    if (offset + dst.size() > size_) throw std::out_of_range("DeviceBuffer::CopyToHost past the end");
    CUZK_CUDA_CHECK(cudaMemcpyAsync(dst.data(), ptr_ + offset, dst.size_bytes(), cudaMemcpyDeviceToHost, stream));
  }

 private:
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

// count elements of T in page-locked host memory (cudaHostAlloc). Allocation
// is slow (~2 GB/s on the H200 host, page locking included): allocate once
// and reuse.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t count) : size_(count) {
    if (count) CUZK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T), cudaHostAllocDefault));
  }
  ~PinnedBuffer() { Reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return ptr_; }
  size_t size() const { return size_; }
  std::span<T> span() const { return {ptr_, size_}; }
  T& operator[](size_t i) const { return ptr_[i]; }

  void Reset() {
    if (ptr_) internal::ReportReleaseError(cudaFreeHost(ptr_), "cudaFreeHost");
    ptr_ = nullptr;
    size_ = 0;
  }

 private:
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

// A non-blocking stream (does not synchronize with the legacy default stream).
class Stream {
 public:
  Stream() { CUZK_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_) internal::ReportReleaseError(cudaStreamDestroy(s_), "cudaStreamDestroy");
  }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      if (s_) internal::ReportReleaseError(cudaStreamDestroy(s_), "cudaStreamDestroy");
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void Synchronize() const { CUZK_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) { CUZK_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
  ~Event() {
    if (e_) internal::ReportReleaseError(cudaEventDestroy(e_), "cudaEventDestroy");
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      if (e_) internal::ReportReleaseError(cudaEventDestroy(e_), "cudaEventDestroy");
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return e_; }
  void Record(cudaStream_t s) const { CUZK_CUDA_CHECK(cudaEventRecord(e_, s)); }
  void Synchronize() const { CUZK_CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float ElapsedMsSince(const Event& start) const {
    float ms = 0;
    CUZK_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// Makes `device` current for a scope and restores the previous one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    CUZK_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) CUZK_CUDA_CHECK(cudaSetDevice(device));
    changed_ = previous_ != device;
  }
  ~ScopedDevice() {
    if (changed_) internal::ReportReleaseError(cudaSetDevice(previous_), "cudaSetDevice");
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace cuzk::cuda
