#pragma once
// MappedFile: a whole file mapped read-only (mmap, MAP_PRIVATE), unmapped on
// destruction. Parameter files run to tens of GB: mapping lets the decoder
// threads read them without a copy, and the kernel drop the pages again.
// An empty file maps to an empty span. Errors (open, stat, mmap) throw
// std::system_error naming the path.
//
//   MappedFile f("/var/tmp/filecoin-proof-parameters/x.params");
//   std::span<const uint8_t> bytes = f.bytes();
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cuzk::groth16 {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  void Release();
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cuzk::groth16
