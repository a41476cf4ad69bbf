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
//   cuda::KeyImageUploader up(16);                    // 2 x 48 MiB pinned + device each
//   up.Upload(image, groth16::KeySection::kH, bases.mutable_data(), sizeof(G1Affine));
#include <cstddef>
#include <memory>

#include "engine/groth16/key_image.hpp"

namespace cuzk::cuda {

class KeyImageUploader {
 public:
  // workers: reading threads (1..64), each with two page-locked and two
  // device buffers of groth16::KeyImageStream::BufferBytes(). Made with the
  // target device current.
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

  double alloc_ms() const { return alloc_ms_; }  // making the buffers (page-locking is not free)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  double alloc_ms_ = 0;
};

}  // namespace cuzk::cuda
