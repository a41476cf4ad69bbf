#pragma once
// Damage that only a key image's record checks can find: the image at `path`
// rewritten with one record changed, every digest made anew
// (util::CacheWriter), so the header and digests all pass. Shared by
// key_image_stream_test (the host's checks) and key_image_gpu_test (the
// device's, cuda::KeyImageUploader).
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/groth16/key_image.hpp"
#include "engine/util/cache_file.hpp"

namespace cuzk::test {

// Every section of the image read, `edit(name, bytes)` given each, the image
// written again with its digests.
inline void RewriteKeyImage(const std::string& path, uint64_t source,
                            const std::function<void(const std::string& name, std::vector<uint8_t>& bytes)>& edit) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> sections;
  {
    const util::CacheReader r(path, groth16::kKeyImageKind, source);
    for (const char* name : {"meta", "vk", "h", "l", "a", "b_g1", "b_g2", "h48"}) {
      std::vector<uint8_t> bytes(r.Section(name).bytes);
      r.ReadSection(name, bytes, 2);
      sections.emplace_back(name, std::move(bytes));
    }
  }
  for (auto& [name, bytes] : sections) edit(name, bytes);
  util::CacheWriter w(path, groth16::kKeyImageKind, source);
  for (const auto& [name, bytes] : sections) {
    w.AddSection(name, bytes.size(), [&bytes = bytes](uint64_t offset, std::span<uint8_t> out) {
      std::memcpy(out.data(), bytes.data() + offset, out.size());
    });
  }
  w.Commit();
}

// Point `index` of `section` with its flag byte set.
inline void SetFlagInKeyImage(const std::string& path, uint64_t source, groth16::KeySection section, uint64_t index) {
  RewriteKeyImage(path, source, [&](const std::string& name, std::vector<uint8_t>& bytes) {
    if (name != groth16::KeyImageStream::Name(section)) return;
    bytes.at(index * groth16::KeyImageStream::RecordBytes(section) + groth16::KeyImageStream::FlagOffset(section)) = 1;
  });
}

// Record `index` of the compressed H section replaced by `record` (48 bytes).
inline void SetCompressedHRecord(const std::string& path, uint64_t source, uint64_t index,
                                 std::span<const uint8_t, 48> record) {
  RewriteKeyImage(path, source, [&](const std::string& name, std::vector<uint8_t>& bytes) {
    if (name != groth16::KeyImageStream::Name(groth16::KeySection::kHCompressed)) return;
    std::memcpy(bytes.data() + index * 48, record.data(), 48);
  });
}

}  // namespace cuzk::test
