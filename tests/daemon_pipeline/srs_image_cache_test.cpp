// SrsRegistry with an image cache (prover/srs_image_cache.hpp) on the daemon
// fixture's 2 KiB SnapDeals parameters: the first load compiles and decodes
// and writes both images in the background; a second registry loads the same
// set from them (equal circuit and key, and a proof from it verifies); a
// damaged key image is rebuilt from the .params, never used; a cache folder
// that cannot be written leaves loads working.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "prover/srs_registry.hpp"

namespace cuzk::prover {
namespace {

namespace fs = std::filesystem;

std::string ParamDir() {
  if (const char* d = std::getenv("CUZK_PIPELINE_TEST_PARAMS")) return d;
  return CUZK_PIPELINE_PARAM_CACHE;
}

struct TempDir {
  fs::path path;
  TempDir() : path(fs::temp_directory_path() / ("cuzk-srs-images-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

bool HaveFixture() {
  const auto shape = filecoin::SectorShape::FromSectorSize(2048);
  return fs::exists(fs::path(ParamDir()) / (snapdeals::EmptySectorUpdateParamsStem(shape) + ".params"));
}

void ExpectSameSet(const LoadedParams& x, const LoadedParams& y) {
  EXPECT_EQ(x.circuit.num_inputs, y.circuit.num_inputs);
  EXPECT_EQ(x.circuit.num_aux, y.circuit.num_aux);
  EXPECT_EQ(x.circuit.a.columns, y.circuit.a.columns);
  EXPECT_EQ(x.circuit.b.values, y.circuit.b.values);
  EXPECT_EQ(x.circuit.c.row_offsets, y.circuit.c.row_offsets);
  EXPECT_EQ(x.circuit.a_density, y.circuit.a_density);
  EXPECT_EQ(x.circuit.b_density, y.circuit.b_density);
  EXPECT_TRUE(x.pk.vk == y.pk.vk);
  EXPECT_EQ(x.pk.h, y.pk.h);
  EXPECT_EQ(x.pk.l, y.pk.l);
  EXPECT_EQ(x.pk.a, y.pk.a);
  EXPECT_EQ(x.pk.b_g1, y.pk.b_g1);
  EXPECT_EQ(x.pk.b_g2, y.pk.b_g2);
  EXPECT_EQ(x.pk.a_density, y.pk.a_density);
  EXPECT_EQ(x.pk.b_density, y.pk.b_density);
  EXPECT_EQ(x.resident_bytes, y.resident_bytes);
}

// One registry's load of the 2 KiB set with `cache`, once its image writes are done.
struct Load {
  std::shared_ptr<const LoadedParams> params;
  SrsImageCache::Stats stats;
};
Load LoadWith(const std::string& cache) {
  SrsRegistry srs(ParamDir(), 0, cache);
  Load load{srs.Acquire("snap-2k").Get(nullptr), {}};
  srs.images().WaitForWrites();
  load.stats = srs.images().stats();
  return load;
}

TEST(SrsImageCache, SecondLoadCopiesImagesAndDamageIsRebuilt) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir;
  const std::string cache = (dir.path / "images").string();

  const Load first = LoadWith(cache);
  EXPECT_EQ(first.stats.circuit_hits + first.stats.key_hits, 0u);
  EXPECT_EQ(first.stats.circuit_writes, 1u);
  EXPECT_EQ(first.stats.key_writes, 1u);
  EXPECT_GT(first.stats.bytes_written, first.params->resident_bytes / 2);
  ASSERT_TRUE(fs::exists(fs::path(cache) / "snap-2k.circuit-image"));
  std::string key_path;
  for (const auto& f : fs::directory_iterator(cache)) {
    if (f.path().extension() == ".key-image") key_path = f.path().string();
  }
  ASSERT_FALSE(key_path.empty());

  {
    const Load second = LoadWith(cache);
    EXPECT_EQ(second.stats.circuit_hits, 1u);
    EXPECT_EQ(second.stats.key_hits, 1u);
    EXPECT_EQ(second.stats.circuit_writes + second.stats.key_writes + second.stats.rebuilds, 0u);
    ExpectSameSet(*first.params, *second.params);
  }

  // One byte of the key image's points changed: the digest refuses it, the
  // key is decoded from the .params again and the image rewritten.
  {
    std::fstream f(key_path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(fs::file_size(key_path) / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(std::streamoff(fs::file_size(key_path) / 2));
    c = char(c ^ 0x10);
    f.write(&c, 1);
  }
  {
    const Load third = LoadWith(cache);
    EXPECT_EQ(third.stats.circuit_hits, 1u);
    EXPECT_EQ(third.stats.key_hits, 0u);
    EXPECT_EQ(third.stats.rebuilds, 1u);
    EXPECT_EQ(third.stats.key_writes, 1u);
    ExpectSameSet(*first.params, *third.params);
  }
  EXPECT_EQ(LoadWith(cache).stats.key_hits, 1u) << "the rewritten image is good";
}

TEST(SrsImageCache, UnwritableFolderLeavesLoadsWorking) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir;
  fs::create_directories(dir.path);
  const fs::path blocker = dir.path / "file";
  std::ofstream(blocker) << "not a folder";
  SrsRegistry srs(ParamDir(), 0, (blocker / "images").string());
  std::shared_ptr<const LoadedParams> p = srs.Acquire("snap-2k").Get(nullptr);
  srs.images().WaitForWrites();
  EXPECT_GT(p->resident_bytes, 0u);
  EXPECT_EQ(srs.images().stats().circuit_writes + srs.images().stats().key_writes, 0u);
}

}  // namespace
}  // namespace cuzk::prover
