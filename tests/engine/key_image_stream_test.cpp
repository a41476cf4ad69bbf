// Key images streamed somewhere other than host vectors
// (groth16::KeyImageStream, what cuda::CudaBackend::LoadKeyImage reads):
// every point reaches its index exactly once, whole, in any number of
// workers, including the records cut by the image's 48 MiB chunk edges
// (sections of 104- and 200-byte records larger than a chunk); the shell
// has the key's sizes, verifying key and end points; a damaged section, a
// stale image and a worker's buffer that is too small are errors, never a
// different key. The device is emulated: each record's first 96 (G1) or
// 192 (G2) bytes are copied to its index, as the upload kernel does.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "engine/groth16/key_image.hpp"
#include "engine/util/cache_file.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk {
namespace {

namespace fs = std::filesystem;
using groth16::KeyImageStream;
using groth16::KeySection;
using test::TempDir;

constexpr uint64_t kSource = 0x5eed0001;

// Points with random limbs (an image does not check the curve: the .params
// reader did, before any image was made). Not at infinity.
template <class Point>
void FillRandom(util::OverwriteVector<Point>& v, size_t n, std::mt19937_64& rng) {
  v.resize(n);
  for (Point& p : v) {
    std::memset(&p, 0, sizeof p);
    auto* words = reinterpret_cast<uint64_t*>(&p);
    for (size_t w = 0; w < (sizeof p.x + sizeof p.y) / 8; ++w) words[w] = rng();
    p.infinity = false;
  }
}

// A bellperson-form key whose H (G1, 104 B) and B_g2 (G2, 200 B) sections
// span `h_chunks` and `b_chunks` image chunks (the last one partly).
groth16::ProvingKey BigKey(std::mt19937_64& rng, double h_chunks, double b_chunks) {
  groth16::ProvingKey pk;
  pk.h_form = groth16::HQueryForm::kBellperson;
  const double chunk = double(KeyImageStream::BufferBytes());
  FillRandom(pk.h, size_t(h_chunks * chunk / sizeof(ec::G1Affine)), rng);
  FillRandom(pk.l, 1000 + rng() % 1000, rng);
  FillRandom(pk.a, 3, rng);
  const size_t b = size_t(b_chunks * chunk / sizeof(ec::G2Affine));
  FillRandom(pk.b_g1, b, rng);
  FillRandom(pk.b_g2, b, rng);
  pk.vk.ic.resize(3);
  for (auto& p : pk.vk.ic) p = ec::G1Affine::Generator();
  pk.vk.alpha_g1 = ec::G1Affine::Generator();
  pk.vk.beta_g1 = ec::G1Affine::Generator();
  pk.vk.delta_g1 = ec::G1Affine::Generator();
  pk.vk.beta_g2 = ec::G2Affine::Generator();
  pk.vk.gamma_g2 = ec::G2Affine::Generator();
  pk.vk.delta_g2 = ec::G2Affine::Generator();
  return pk;
}

// The emulated device: one array of device records per section, and how
// often each index was written.
struct Device {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> writes;
};

Device StreamToDevice(const KeyImageStream& image, KeySection s, unsigned workers, size_t device_record) {
  const size_t n = image.Count(s), r = KeyImageStream::RecordBytes(s);
  Device d{std::vector<uint8_t>(n * device_record, 0xee), std::vector<uint32_t>(n, 0)};
  std::vector<std::vector<uint8_t>> buffers(workers, std::vector<uint8_t>(KeyImageStream::BufferBytes()));
  std::vector<const uint8_t*> handed(workers, nullptr);
  image.Stream(
      s, workers,
      [&](unsigned w) {
        handed.at(w) = buffers.at(w).data();
        return std::span<uint8_t>(buffers[w]);
      },
      [&](unsigned w, uint64_t first, std::span<const uint8_t> records) {
        // The records lie in the buffer this worker got last.
        EXPECT_GE(records.data(), handed.at(w));
        EXPECT_LE(records.data() + records.size(), handed[w] + buffers[w].size());
        ASSERT_EQ(records.size() % r, 0u);
        for (size_t k = 0; k < records.size() / r; ++k) {
          ASSERT_LT(first + k, n);
          std::memcpy(d.bytes.data() + (first + k) * device_record, records.data() + k * r, device_record);
          d.writes[first + k]++;
        }
      });
  return d;
}

template <class Point>
void ExpectOnDevice(const Device& d, const util::OverwriteVector<Point>& want, const char* what) {
  constexpr size_t kDevice = sizeof(Point{}.x) + sizeof(Point{}.y);
  ASSERT_EQ(d.writes.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(d.writes[i], 1u) << what << " point " << i << " written " << d.writes[i] << " times";
    ASSERT_EQ(std::memcmp(d.bytes.data() + i * kDevice, &want[i], kDevice), 0) << what << " point " << i;
  }
}

TEST(KeyImageStream, EveryPointOnceAcrossChunkEdgesInAnyNumberOfWorkers) {
  std::mt19937_64 rng = test::SeededRng();
  // H over 2.3 chunks (two cut records), B over 1.4 (one cut G2 record).
  const groth16::ProvingKey pk = BigKey(rng, 2.3, 1.4);
  TempDir dir("cuzk-key-stream-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(pk, path, kSource);
  const KeyImageStream image(path, kSource);
  EXPECT_EQ(image.Count(KeySection::kH), pk.h.size());
  EXPECT_EQ(image.Count(KeySection::kBG2), pk.b_g2.size());
  for (unsigned workers : {1u, 2u, 3u, 5u}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    ExpectOnDevice(StreamToDevice(image, KeySection::kH, workers, 96), pk.h, "h");
    ExpectOnDevice(StreamToDevice(image, KeySection::kL, workers, 96), pk.l, "l");
    ExpectOnDevice(StreamToDevice(image, KeySection::kA, workers, 96), pk.a, "a");
    ExpectOnDevice(StreamToDevice(image, KeySection::kBG1, workers, 96), pk.b_g1, "b_g1");
    ExpectOnDevice(StreamToDevice(image, KeySection::kBG2, workers, 192), pk.b_g2, "b_g2");
  }
}

TEST(KeyImageStream, ShellHasTheSizesTheVerifyingKeyAndTheEnds) {
  std::mt19937_64 rng = test::SeededRng();
  const groth16::ProvingKey pk = BigKey(rng, 0.2, 0.1);
  TempDir dir("cuzk-key-stream-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(pk, path, kSource);
  const groth16::ProvingKey shell = KeyImageStream(path, kSource).Shell();
  EXPECT_TRUE(shell.vk == pk.vk);
  EXPECT_EQ(shell.h_form, groth16::HQueryForm::kBellperson);
  auto ends = [](const auto& got, const auto& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    EXPECT_TRUE(got.front() == want.front()) << what;
    EXPECT_TRUE(got.back() == want.back()) << what;
  };
  ends(shell.h, pk.h, "h");
  ends(shell.l, pk.l, "l");
  ends(shell.a, pk.a, "a");
  ends(shell.b_g1, pk.b_g1, "b_g1");
  ends(shell.b_g2, pk.b_g2, "b_g2");
}

TEST(KeyImageStream, DamageStalenessAndSmallBuffersAreErrors) {
  std::mt19937_64 rng = test::SeededRng();
  const groth16::ProvingKey pk = BigKey(rng, 1.2, 0.1);
  TempDir dir("cuzk-key-stream-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(pk, path, kSource);
  EXPECT_THROW(KeyImageStream(path, kSource + 1), util::CacheError) << "made from another .params";
  {
    const KeyImageStream image(path, kSource);
    std::vector<uint8_t> small(1000);
    EXPECT_THROW(image.Stream(
                     KeySection::kH, 1, [&](unsigned) { return std::span<uint8_t>(small); },
                     [](unsigned, uint64_t, std::span<const uint8_t>) {}),
                 std::logic_error);
  }
  // One byte of H flipped past the first chunk (a digest mismatch once every
  // chunk was handed over: the caller discards what it got).
  std::vector<uint8_t> bytes = test::ReadAll(path);
  const size_t at = bytes.size() - pk.b_g2.size() * sizeof(ec::G2Affine) - pk.b_g1.size() * sizeof(ec::G1Affine) -
                    pk.a.size() * sizeof(ec::G1Affine) - pk.l.size() * sizeof(ec::G1Affine) - 5 * 4096 -
                    1000;  // below the section paddings
  bytes.at(at) ^= 0x10;
  test::WriteAll(path, bytes);
  const KeyImageStream image(path, kSource);
  EXPECT_THROW(StreamToDevice(image, KeySection::kH, 2, 96), util::CacheError);
  EXPECT_NO_THROW(StreamToDevice(image, KeySection::kBG2, 2, 192)) << "the other sections are intact";
}

}  // namespace
}  // namespace cuzk
