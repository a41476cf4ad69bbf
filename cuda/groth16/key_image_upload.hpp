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
// Page-locking the buffers is not free: 16 workers' 1.5 GB took 0.7-0.8 s
// with cudaHostAlloc on the H200 host (1.1-1.5 s inside a starting daemon),
// ~0.3 s as registered huge pages (cuda/runtime/registered_buffer.hpp, used
// here; session 9's registered buffers were 4 KiB pages faulted in by
// MAP_POPULATE, 0.54-0.56 s of faults alone in session 10's bench; why they
// measured slower than cudaHostAlloc inside the daemon was not established).
// Warm() makes them ahead of a
// load on up to 8 threads (CudaBackend does at start, on a thread of its own,
// and again before streaming, which finishes what the first has not made); a
// reading thread whose pair is not made yet makes it itself. Page-locking
// blocks other threads' CUDA calls, so buffers made while others stream slow
// the stream (measured: see CudaBackend::LoadKeyImage).
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fp.hpp"
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
  // `cancel` (may be null): set, the stream stops at its next chunk with a
  // std::runtime_error (dest then holds garbage).
  void Upload(const groth16::KeyImageStream& image, groth16::KeySection section, void* dest, size_t device_record_bytes,
              const std::atomic<bool>* cancel = nullptr);

  // The compressed H section (groth16::KeySection::kHCompressed, 48 bytes a
  // point) into dest (device memory for image.Count(kHCompressed) affine
  // points): each chunk's records copied as they are and decompressed there
  // (LaunchDecompressG1: a square root a point), digests checked;
  // util::CacheError naming the first record that is not a point of G1
  // (dest then holds garbage). Half the bytes of Upload(kH) to read, for a
  // load from the disk. Returns when the device is done.
  void UploadCompressedH(const groth16::KeyImageStream& image, AffinePoint<Fp>* dest,
                         const std::atomic<bool>* cancel = nullptr);

  // Makes every worker's buffers not made yet, on up to 8 threads, until
  // done or StopWarming(); thread-safe with Upload. Allocation failures end
  // it quietly (the worker that needs the buffers reports them).
  void Warm();
  void StopWarming() { stop_warming_ = true; }

  // Time spent making buffers so far, by Warm's threads and by the workers
  // (their sum: up to 8 times the wall-clock wait while Warm makes them).
  double alloc_ms() const { return double(alloc_us_.load()) / 1000; }
  unsigned workers() const;

 private:
  struct Impl;
  // The section's chunks into the workers' device buffers, kernel(stream,
  // records on the device, count, index of the first) run on each as it
  // lands; returns the bad-record word (kNoBadRecord when no kernel set it)
  // once every chunk is done.
  using ChunkKernel = std::function<void(cudaStream_t, const uint8_t*, size_t, uint64_t)>;
  static constexpr unsigned long long kNoBadRecord = ~0ull;
  unsigned long long StreamChunks(const groth16::KeyImageStream& image, groth16::KeySection section,
                                  groth16::KeyImageStream::FlagCheck flags, const std::atomic<bool>* cancel,
                                  const ChunkKernel& kernel);

  std::unique_ptr<Impl> impl_;
  std::atomic<uint64_t> alloc_us_{0};
  std::atomic<bool> stop_warming_{false};
};

}  // namespace cuzk::cuda
