#pragma once
// MappedFile: a whole file mapped read-only (mmap, MAP_PRIVATE), unmapped on
// destruction; move-only. Parameter files run to tens of GB: mapping lets the
// decoder threads read them without a copy, and the kernel drop the pages
// again. An empty file maps to an empty span. Errors (open, stat, not a regular
// file, mmap) throw std::system_error whose message starts with the path
// ("PATH: cannot open: No such file or directory"); readers with their own
// error type (snarkjs::FormatError) rethrow it with that message.
//
//   MappedFile f("/var/tmp/filecoin-proof-parameters/x.params", MappedFile::Access::kSequential);
//   std::span<const uint8_t> bytes = f.bytes();
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace cuzk::util {

class MappedFile {
 public:
  // kSequential: the file is read front to back (madvise MADV_SEQUENTIAL: more
  // readahead, pages dropped sooner); kNormal: the kernel's default.
  enum class Access { kNormal, kSequential };

  explicit MappedFile(const std::string& path, Access access = Access::kNormal);
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

}  // namespace cuzk::util
