#pragma once
// Damage that only a key image's flag check can find: the image at `path`
// rewritten with the flag byte of point `index` of `section` set, every
// digest made anew (util::CacheWriter), so the header and digests all pass.
// Shared by key_image_stream_test (the host's check) and key_image_gpu_test
// (the device's, cuda::KeyImageUploader).
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/groth16/key_image.hpp"
#include "engine/util/cache_file.hpp"

namespace cuzk::test {

inline void SetFlagInKeyImage(const std::string& path, uint64_t source, groth16::KeySection section, uint64_t index) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> sections;
  {
    const util::CacheReader r(path, groth16::kKeyImageKind, source);
    for (const char* name : {"meta", "vk", "h", "l", "a", "b_g1", "b_g2"}) {
      std::vector<uint8_t> bytes(r.Section(name).bytes);
      r.ReadSection(name, bytes, 2);
      sections.emplace_back(name, std::move(bytes));
    }
  }
  for (auto& [name, bytes] : sections) {
    if (name != groth16::KeyImageStream::Name(section)) continue;
    bytes.at(index * groth16::KeyImageStream::RecordBytes(section) + groth16::KeyImageStream::FlagOffset(section)) = 1;
  }
  util::CacheWriter w(path, groth16::kKeyImageKind, source);
  for (const auto& [name, bytes] : sections) {
    w.AddSection(name, bytes.size(), [&bytes = bytes](uint64_t offset, std::span<uint8_t> out) {
      std::memcpy(out.data(), bytes.data() + offset, out.size());
    });
  }
  w.Commit();
}

}  // namespace cuzk::test
