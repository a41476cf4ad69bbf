#pragma once
// Key image sections straight into device memory (issue 17): the image's
// chunks are read into page-locked buffers (one pair per reading thread),
// copied to the device as they are, and a kernel drops each record's flag
// byte and padding (host ec::AffinePoint, G1 104 B / G2 200 B) into the
// bases' device layout (AffinePoint<Field>: x, y in Montgomery form, the
// same limb bytes: G1 96 B / G2 192 B). The host never holds a copy of the
// bases; its cost is the pread into pinned memory and the image's digests,
// both on the reading threads, while the copies and the kernel run on each
// thread's own stream.
//
//   cuda::KeyImageUploader up(16);                    // 2 x 48 MiB pinned + device each, made on first use
//   up.Upload(image, groth16::KeySection::kH, bases.mutable_data(), sizeof(G1Affine));
//
// Page-locking the buffers is not free (~1 s for 16 workers' 1.5 GB on the
// H200 host; registered anonymous memory, mmap + cudaHostRegister, took
// longer still: 1.4-1.7 s against 1.1-1.3 in the same call, docs/perf/gpu.md
// session 9 call 3): Warm() makes them ahead of a load (CudaBackend does at
// start, on a thread of its own, and again before streaming, which finishes what
// the first has not made); a reading thread whose pair is not made yet makes
// it itself. Page-locking blocks other threads' CUDA calls, so buffers made
// while others stream slow the stream (measured: see CudaBackend::LoadKeyImage).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/groth16/key_image.hpp"

namespace cuzk::cuda {

class KeyImageUploader {
 public:
  // workers: reading threads (1..64), each with two page-locked and two
  // device buffers of groth16::KeyImageStream::BufferBytes() (made on first
  // use or by Warm). Made with the target device current.
  explicit KeyImageUploader(unsigned workers);
  ~KeyImageUploader();
  KeyImageUploader(const KeyImageUploader&) = delete;
  KeyImageUploader& operator=(const KeyImageUploader&) = delete;

  // Writes every point of `section` into dest (device memory for
  // image.Count(section) points of `device_record_bytes` each, a multiple of
  // 8 below the image's record size), digests and flags checked
  // (util::CacheError: dest holds garbage). Returns when the device is done.
  void Upload(const groth16::KeyImageStream& image, groth16::KeySection section, void* dest,
              size_t device_record_bytes);

  // Makes every worker's buffers not made yet, one worker after another,
  // until done or StopWarming(); thread-safe with Upload. Allocation
  // failures end it quietly (the worker that needs the buffers reports them).
  void Warm();
  void StopWarming() { stop_warming_ = true; }

  // Time spent making buffers so far, by Warm and by the workers (their sum).
  double alloc_ms() const { return double(alloc_us_.load()) / 1000; }
  unsigned workers() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<uint64_t> alloc_us_{0};
  std::atomic<bool> stop_warming_{false};
};

}  // namespace cuzk::cuda
