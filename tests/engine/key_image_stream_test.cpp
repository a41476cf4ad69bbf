// Key images streamed somewhere other than host vectors
// (groth16::KeyImageStream, what cuda::CudaBackend::LoadKeyImage reads):
// every point reaches its index exactly once, whole, in any number of
// workers, including the records cut by the image's 48 MiB chunk edges
// (sections of 104- and 200-byte records larger than a chunk); the shell
// has the key's sizes, verifying key and end points; a damaged section, a
// stale image and a worker's buffer that is too small are errors, never a
// different key; a record whose flag byte is set (every digest intact) is
// refused, unless the caller checks flags itself (FlagCheck::kByCaller, as
// the GPU does). The device is emulated (tests/support/emulated_device.hpp).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ff/fr.hpp"
#include "engine/groth16/key_image.hpp"
#include "engine/util/cache_file.hpp"
#include "engine/util/page_cache.hpp"
#include "tests/support/emulated_device.hpp"
#include "tests/support/key_image_flag.hpp"
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
// reader did, before any image was made), each coordinate's top limb below
// 2^60, so below p as a field element is (the compressed H section keeps
// its flags in x's top bits, and its root flag compares y with -y). Not at
// infinity.
template <class Point>
void FillRandom(util::OverwriteVector<Point>& v, size_t n, std::mt19937_64& rng) {
  v.resize(n);
  for (Point& p : v) {
    std::memset(&p, 0, sizeof p);
    auto* words = reinterpret_cast<uint64_t*>(&p);
    for (size_t w = 0; w < (sizeof p.x + sizeof p.y) / 8; ++w) words[w] = w % 6 == 5 ? rng() >> 4 : rng();
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
    test::ExpectOnEmulatedDevice(test::StreamToEmulatedDevice(image, KeySection::kH, workers), pk.h, "h");
    test::ExpectOnEmulatedDevice(test::StreamToEmulatedDevice(image, KeySection::kL, workers), pk.l, "l");
    test::ExpectOnEmulatedDevice(test::StreamToEmulatedDevice(image, KeySection::kA, workers), pk.a, "a");
    test::ExpectOnEmulatedDevice(test::StreamToEmulatedDevice(image, KeySection::kBG1, workers), pk.b_g1, "b_g1");
    test::ExpectOnEmulatedDevice(test::StreamToEmulatedDevice(image, KeySection::kBG2, workers), pk.b_g2, "b_g2");
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
  const util::CacheSection h = util::CacheReader(path, groth16::kKeyImageKind, kSource).Section("h");
  bytes.at(h.offset + h.bytes - 1000) ^= 0x10;
  test::WriteAll(path, bytes);
  const KeyImageStream image(path, kSource);
  EXPECT_THROW(test::StreamToEmulatedDevice(image, KeySection::kH, 2), util::CacheError);
  EXPECT_NO_THROW(test::StreamToEmulatedDevice(image, KeySection::kBG2, 2)) << "the other sections are intact";
}

// The compressed H section (KeySection::kHCompressed): one 48-byte record
// per H point, every one once across workers, holding x's limbs and, in bit
// 382, whether y is the larger root (checked here against y and -y as
// canonical integers, not through the writer's encoding); bit 383 clear.
// A record with bit 383 set is refused by the host's check, passed on with
// kByCaller. The share of its pages in the page cache once read is 1.
TEST(KeyImageStream, CompressedHHoldsXAndTheRootOfEveryPoint) {
  std::mt19937_64 rng = test::SeededRng();
  const groth16::ProvingKey pk = BigKey(rng, 1.3, 0.1);
  TempDir dir("cuzk-key-stream-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(pk, path, kSource);
  const KeyImageStream image(path, kSource);
  ASSERT_EQ(image.Count(KeySection::kHCompressed), pk.h.size());
  const auto larger = [](const ff::Fp& y) {
    const auto a = y.ToCanonical(), b = (-y).ToCanonical();
    for (int i = 5; i >= 0; --i)
      if (a[i] != b[i]) return a[i] > b[i];
    return false;
  };
  for (unsigned workers : {1u, 3u}) {
    const test::EmulatedSection d = test::StreamToEmulatedDevice(image, KeySection::kHCompressed, workers);
    ASSERT_EQ(d.writes.size(), pk.h.size());
    for (size_t i = 0; i < pk.h.size(); ++i) {
      ASSERT_EQ(d.writes[i], 1u) << "record " << i;
      const uint8_t* rec = d.bytes.data() + i * 48;
      uint8_t x[48];
      std::memcpy(x, &pk.h[i].x, 48);
      ASSERT_EQ(std::memcmp(rec, x, 47), 0) << "record " << i;
      ASSERT_EQ(rec[47] & 0x3f, x[47]) << "record " << i;
      ASSERT_EQ((rec[47] & 0x40) != 0, larger(pk.h[i].y)) << "record " << i;
      ASSERT_EQ(rec[47] & 0x80, 0) << "record " << i;
    }
  }
  EXPECT_GE(image.ResidentShare(KeySection::kHCompressed), 0.99) << "just read";
  EXPECT_EQ(util::ResidentShare(dir.File("absent"), 0, 4096), 0.0);
  EXPECT_EQ(util::ResidentShare(path, 0, 0), 0.0);
  const uint64_t bad = pk.h.size() / 2 + rng() % (pk.h.size() / 2);
  std::array<uint8_t, 48> infinity{};
  infinity[47] = 0x80;
  test::SetCompressedHRecord(path, kSource, bad, infinity);
  const KeyImageStream flagged(path, kSource);
  try {
    test::StreamToEmulatedDevice(flagged, KeySection::kHCompressed, 2);
    ADD_FAILURE() << "a compressed record with its infinity bit set was streamed";
  } catch (const util::CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("section h48 point " + std::to_string(bad) + " "), std::string::npos)
        << e.what();
  }
  std::vector<uint8_t> buffer(KeyImageStream::BufferBytes());
  uint64_t seen = 0;
  EXPECT_NO_THROW(flagged.Stream(
      KeySection::kHCompressed, 1, [&](unsigned) { return std::span<uint8_t>(buffer); },
      [&](unsigned, uint64_t, std::span<const uint8_t> records) { seen += records.size() / 48; },
      KeyImageStream::FlagCheck::kByCaller));
  EXPECT_EQ(seen, pk.h.size());
  EXPECT_THROW(KeyImageStream::FlagOffset(KeySection::kHCompressed), std::invalid_argument);
}

// An image may leave one form of H out (groth16::KeyImageH: what its
// readers use). Compressed only: no plain section (Holds, Stream refused by
// name), the shell's H ends decompressed on the host equal to the key's (real
// points at both ends, each root), the host read refused as
// KeyImageWithoutPlainH, the compressed records equal to a both-forms
// image's, and the file smaller by the plain section. Plain only: the host
// read gives the key, the compressed section is refused.
TEST(KeyImageStream, AnImageMayLeaveOneFormOfHOut) {
  std::mt19937_64 rng = test::SeededRng();
  groth16::ProvingKey pk = BigKey(rng, 1.1, 0.1);
  // The ends on the curve (the shell takes square roots of them), one with
  // each root: the compressed record's flag picks it.
  const ec::G1Affine p = (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
  pk.h.front() = p;
  pk.h.back() = -((ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine());
  TempDir dir("cuzk-key-stream-");
  const std::string both = dir.File("both.key-image"), compressed = dir.File("c.key-image"),
                    plain = dir.File("p.key-image");
  groth16::WriteKeyImage(pk, both, kSource);
  groth16::WriteKeyImage(pk, compressed, kSource, nullptr, groth16::KeyImageH::kCompressed);
  groth16::WriteKeyImage(pk, plain, kSource, nullptr, groth16::KeyImageH::kPlain);
  // Smaller by the section left out, up to its alignment padding.
  const auto smaller_by = [&](const std::string& image, uint64_t bytes) {
    const uint64_t d = fs::file_size(both) - fs::file_size(image);
    EXPECT_GE(d + 4096, bytes) << image;
    EXPECT_LE(d, bytes + 4096) << image;
  };
  smaller_by(compressed, pk.h.size() * sizeof(ec::G1Affine));
  smaller_by(plain, pk.h.size() * 48);

  const KeyImageStream c(compressed, kSource), b(both, kSource);
  EXPECT_FALSE(c.Holds(KeySection::kH));
  EXPECT_TRUE(c.Holds(KeySection::kHCompressed));
  EXPECT_TRUE(c.Holds(KeySection::kL));
  EXPECT_TRUE(b.Holds(KeySection::kH) && b.Holds(KeySection::kHCompressed));
  EXPECT_EQ(c.Count(KeySection::kH), pk.h.size());
  const groth16::ProvingKey shell = c.Shell();
  ASSERT_EQ(shell.h.size(), pk.h.size());
  EXPECT_TRUE(shell.h.front() == pk.h.front());
  EXPECT_TRUE(shell.h.back() == pk.h.back());
  EXPECT_TRUE(shell.l.front() == pk.l.front());
  try {
    test::StreamToEmulatedDevice(c, KeySection::kH, 2);
    ADD_FAILURE() << "a section left out was streamed";
  } catch (const util::CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("section h was left out"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::StreamToEmulatedDevice(c, KeySection::kHCompressed, 3).bytes,
            test::StreamToEmulatedDevice(b, KeySection::kHCompressed, 1).bytes);
  test::ExpectOnEmulatedDevice(test::StreamToEmulatedDevice(c, KeySection::kL, 2), pk.l, "l");
  try {
    groth16::ReadKeyImage(compressed, kSource);
    ADD_FAILURE() << "the host read an image without plain H";
  } catch (const groth16::KeyImageWithoutPlainH& e) {
    EXPECT_NE(std::string(e.what()).find("compressed only"), std::string::npos) << e.what();
  }

  const KeyImageStream pl(plain, kSource);
  EXPECT_TRUE(pl.Holds(KeySection::kH));
  EXPECT_FALSE(pl.Holds(KeySection::kHCompressed));
  EXPECT_THROW(test::StreamToEmulatedDevice(pl, KeySection::kHCompressed, 1), util::CacheError);
  const groth16::ProvingKey read = groth16::ReadKeyImage(plain, kSource);
  ASSERT_EQ(read.h.size(), pk.h.size());
  EXPECT_EQ(std::memcmp(read.h.data(), pk.h.data(), pk.h.size() * sizeof(ec::G1Affine)), 0);
  EXPECT_TRUE(KeyImageStream(plain, kSource).Shell().h.back() == pk.h.back());
}

// A point whose flag byte is set, in an image whose digests all match: the
// stream refuses it naming the point, the host read too; with kByCaller the
// records go to the caller unchecked, flag byte and all (the GPU's check).
TEST(KeyImageStream, AFlagSetIsRefusedUnlessTheCallerChecksFlags) {
  std::mt19937_64 rng = test::SeededRng();
  const groth16::ProvingKey pk = BigKey(rng, 1.2, 0.1);
  TempDir dir("cuzk-key-stream-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(pk, path, kSource);
  const uint64_t bad = pk.h.size() - 3 - rng() % 1000;  // in the second chunk
  test::SetFlagInKeyImage(path, kSource, KeySection::kH, bad);
  const std::string names = "section h point " + std::to_string(bad) + " ";
  try {
    groth16::ReadKeyImage(path, kSource, 2);
    ADD_FAILURE() << "the host read took a point with its flag set";
  } catch (const util::CacheError& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
  const KeyImageStream image(path, kSource);
  try {
    test::StreamToEmulatedDevice(image, KeySection::kH, 2);
    ADD_FAILURE() << "a point with its flag set was streamed";
  } catch (const util::CacheError& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
  std::vector<uint8_t> buffer(KeyImageStream::BufferBytes());
  const uint64_t r = KeyImageStream::RecordBytes(KeySection::kH);
  uint64_t seen = 0, flagged = 0;
  EXPECT_NO_THROW(image.Stream(
      KeySection::kH, 1, [&](unsigned) { return std::span<uint8_t>(buffer); },
      [&](unsigned, uint64_t first, std::span<const uint8_t> records) {
        for (uint64_t i = 0; i < records.size() / r; ++i) {
          ++seen;
          if (records[size_t(i * r + KeyImageStream::FlagOffset(KeySection::kH))] != 0) flagged = first + i;
        }
      },
      KeyImageStream::FlagCheck::kByCaller));
  EXPECT_EQ(seen, pk.h.size());
  EXPECT_EQ(flagged, bad);
  EXPECT_NO_THROW(test::StreamToEmulatedDevice(image, KeySection::kBG2, 2)) << "the other sections are intact";
}

}  // namespace
}  // namespace cuzk
