#pragma once
// A GPU's bases emulated in host memory, for tests of key image streams
// (groth16::KeyImageStream, what cuda::KeyImageUploader reads on the GPU):
// each record's first 96 (G1) or 192 (G2) bytes, its x and y, copied to its
// index as the upload kernel does, with a count of writes per index.
//
//   test::EmulatedSection d = test::StreamToEmulatedDevice(image, KeySection::kH, 4);
//   test::ExpectOnEmulatedDevice(d, pk.h, "h");   // every point once, equal
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "engine/groth16/key_image.hpp"
#include "engine/util/overwrite_vector.hpp"

namespace cuzk::test {

struct EmulatedSection {
  std::vector<uint8_t> bytes;    // Count(section) device records; 0xee where never written
  std::vector<uint32_t> writes;  // how often each index was written
};

// x and y of a point on the device: 96 bytes in G1, 192 in G2; the
// compressed H section's records as they are (48 bytes, decompressed there).
inline size_t DeviceRecordBytes(groth16::KeySection s) {
  if (s == groth16::KeySection::kHCompressed) return 48;
  return s == groth16::KeySection::kBG2 ? 192 : 96;
}

// Streams `section` with `workers` reading threads, each with a buffer of
// its own, and checks that every batch of records lies in the buffer its
// worker was handed last.
inline EmulatedSection StreamToEmulatedDevice(const groth16::KeyImageStream& image, groth16::KeySection s,
                                              unsigned workers) {
  const size_t n = image.Count(s), r = groth16::KeyImageStream::RecordBytes(s), xy = DeviceRecordBytes(s);
  EmulatedSection d{std::vector<uint8_t>(n * xy, 0xee), std::vector<uint32_t>(n, 0)};
  std::vector<std::vector<uint8_t>> buffers(workers, std::vector<uint8_t>(groth16::KeyImageStream::BufferBytes()));
  std::vector<const uint8_t*> handed(workers, nullptr);
  image.Stream(
      s, workers,
      [&](unsigned w) {
        handed.at(w) = buffers.at(w).data();
        return std::span<uint8_t>(buffers[w]);
      },
      [&](unsigned w, uint64_t first, std::span<const uint8_t> records) {
        EXPECT_GE(records.data(), handed.at(w));
        EXPECT_LE(records.data() + records.size(), handed[w] + buffers[w].size());
        ASSERT_EQ(records.size() % r, 0u);
        for (size_t k = 0; k < records.size() / r; ++k) {
          ASSERT_LT(first + k, n);
          std::memcpy(d.bytes.data() + (first + k) * xy, records.data() + k * r, xy);
          d.writes[first + k]++;
        }
      });
  return d;
}

// Every point of `want` written exactly once, its x and y equal.
template <class Point>
void ExpectOnEmulatedDevice(const EmulatedSection& d, const util::OverwriteVector<Point>& want, const char* what) {
  constexpr size_t kXy = sizeof(Point{}.x) + sizeof(Point{}.y);
  ASSERT_EQ(d.writes.size(), want.size()) << what;
  ASSERT_EQ(d.bytes.size(), want.size() * kXy) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(d.writes[i], 1u) << what << " point " << i << " written " << d.writes[i] << " times";
    ASSERT_EQ(std::memcmp(d.bytes.data() + i * kXy, &want[i], kXy), 0) << what << " point " << i;
  }
}

}  // namespace cuzk::test
