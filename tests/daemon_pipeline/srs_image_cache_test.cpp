// SrsRegistry with an image cache (prover/srs_image_cache.hpp) on the daemon
// fixture's 2 KiB SnapDeals parameters: the first load compiles and decodes
// and writes both images in the background; a second registry loads the same
// set from them (equal circuit and key, and a proof from it verifies); a
// damaged key image is rebuilt from the .params, never used; a cache folder
// that cannot be written leaves loads working. With compact circuits on (a
// GPU proving witness-only), the compact form is written by the first load
// and read by the next, equal to r1cs::Compact of the circuit; a damaged or
// stale compact image is refused and rewritten; with them off, none is read
// or written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/key_image.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/util/cache_file.hpp"
#include "prover/srs_registry.hpp"
#include "tests/support/emulated_device.hpp"
#include "tests/support/temp_files.hpp"

namespace cuzk::prover {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

std::string ParamDir() {
  if (const char* d = std::getenv("CUZK_PIPELINE_TEST_PARAMS")) return d;
  return CUZK_PIPELINE_PARAM_CACHE;
}

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
// `hook`: the devices hook (SetKeyToDevices), if any.
Load LoadWith(const std::string& cache, bool compact = false, groth16::KeyImageH key_h = groth16::KeyImageH::kPlain,
              SrsRegistry::KeyToDevices hook = nullptr) {
  SrsRegistry srs(ParamDir(), 0, cache);
  srs.SetCompactCircuits(compact);
  srs.images().SetKeyImageH(key_h);
  if (hook) srs.SetKeyToDevices(std::move(hook));
  Load load{srs.Acquire("snap-2k").Get(nullptr), {}};
  srs.images().WaitForWrites();
  load.stats = srs.images().stats();
  return load;
}

TEST(SrsImageCache, SecondLoadCopiesImagesAndDamageIsRebuilt) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-srs-images-");
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

void FlipByteAt(const std::string& path, uint64_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(std::streamoff(at));
  char c = 0;
  f.read(&c, 1);
  f.seekp(std::streamoff(at));
  c = char(c ^ 0x10);
  f.write(&c, 1);
}

TEST(SrsImageCache, CompactCircuitImageForWitnessOnlyGpus) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-srs-images-");
  const std::string cache = (dir.path / "images").string();
  const fs::path compact_path = fs::path(cache) / "snap-2k.compact-image";

  const Load off = LoadWith(cache, false);  // a CPU-only daemon: no compact form anywhere
  EXPECT_EQ(off.params->compact, nullptr);
  EXPECT_EQ(off.stats.compact_writes, 0u);
  EXPECT_FALSE(fs::exists(compact_path));

  const Load first = LoadWith(cache, true);  // the other images are current: only the compact one is written
  EXPECT_EQ(first.params->compact, nullptr);
  EXPECT_EQ(first.stats.circuit_hits + first.stats.key_hits, 2u);
  EXPECT_EQ(first.stats.compact_writes, 1u);
  EXPECT_EQ(first.stats.circuit_writes + first.stats.key_writes, 0u);
  ASSERT_TRUE(fs::exists(compact_path));

  const Load second = LoadWith(cache, true);
  ASSERT_NE(second.params->compact, nullptr);
  EXPECT_EQ(second.stats.compact_hits, 1u);
  EXPECT_EQ(second.stats.compact_writes + second.stats.rebuilds, 0u);
  const r1cs::CompactCircuit want = r1cs::Compact(second.params->circuit);
  const r1cs::CompactCircuit& got = *second.params->compact;
  EXPECT_EQ(got.coefficients, want.coefficients);
  for (auto [x, y] : {std::pair{&got.a, &want.a}, {&got.b, &want.b}, {&got.c, &want.c}}) {
    EXPECT_EQ(x->row_offsets, y->row_offsets);
    EXPECT_EQ(x->columns, y->columns);
    EXPECT_EQ(x->codes, y->codes);
    EXPECT_EQ(x->escape_values, y->escape_values);
  }
  EXPECT_EQ(second.params->resident_bytes, first.params->resident_bytes + got.Bytes()) << "the budget counts it";

  // Damaged: refused (never used), the set loads without it, the image is rewritten.
  FlipByteAt(compact_path.string(), fs::file_size(compact_path) / 2);
  const Load third = LoadWith(cache, true);
  EXPECT_EQ(third.params->compact, nullptr);
  EXPECT_EQ(third.stats.rebuilds, 1u);
  EXPECT_EQ(third.stats.compact_writes, 1u);
  EXPECT_EQ(LoadWith(cache, true).stats.compact_hits, 1u) << "the rewritten image is good";

  // A compact image of another circuit under this one's name (stale in the
  // way a digest cannot tell: same source, other contents) is refused by the check.
  {
    SrsRegistry srs(ParamDir(), 0, cache);
    std::shared_ptr<const LoadedParams> p = srs.Acquire("snap-2k").Get(nullptr);
    r1cs::CompiledCircuit other = p->circuit;
    other.a.values[other.a.nonzeros() / 2] += ff::Fr::One();
    EXPECT_EQ(srs.images().ReadCompact("snap-2k", other, 0), nullptr);
    EXPECT_NE(srs.images().ReadCompact("snap-2k", p->circuit, 0), nullptr);
  }
}

// A stand-in for the GPUs of SrsRegistry::SetKeyToDevices: it streams the
// key image (groth16::KeyImageStream) as CudaBackend::LoadKeyImage does and
// keeps each record's x, y bytes at its index, or refuses, or throws.
struct FakeDevices {
  enum class Mode { kHold, kRefuse, kThrow, kDamaged } mode = Mode::kHold;
  std::map<groth16::KeySection, test::EmulatedSection> sections;
  std::shared_ptr<const r1cs::CompactCircuit> compact;  // what the hook's CompactSource gave
  SrsRegistry::DevicesBroken broken;                    // the last call's (gpus.early_proving's failure report)
  int calls = 0;

  bool operator()(const groth16::ProvingKey& shell, const std::shared_ptr<const groth16::KeyImageStream>& stream,
                  uint64_t circuit_bytes, const SrsRegistry::CompactSource& source,
                  const SrsRegistry::DevicesBroken& on_broken) {
    ++calls;
    EXPECT_TRUE(bool(on_broken));
    broken = on_broken;
    const groth16::KeyImageStream& image = *stream;
    EXPECT_GT(circuit_bytes, 0u) << "the compact image's size, for the device budget";
    EXPECT_TRUE(bool(source));
    if (source) compact = source();  // blocks until the circuit's images are read (null if they cannot be)
    EXPECT_EQ(shell.h.size(), image.Count(groth16::KeySection::kH));
    if (mode == Mode::kRefuse) return false;
    if (mode == Mode::kThrow) throw std::runtime_error("a device failed");
    if (mode == Mode::kDamaged) throw util::CacheError("a record of the image is not a point");
    // H in the form the image holds (both: the plain one).
    const groth16::KeySection h =
        image.Holds(groth16::KeySection::kH) ? groth16::KeySection::kH : groth16::KeySection::kHCompressed;
    for (auto s :
         {h, groth16::KeySection::kL, groth16::KeySection::kA, groth16::KeySection::kBG1, groth16::KeySection::kBG2}) {
      sections[s] = test::StreamToEmulatedDevice(image, s, 2);
    }
    return true;
  }
};

// `devices` as the registry's devices hook (it must outlive the registry's use of it).
SrsRegistry::KeyToDevices HookOf(FakeDevices& devices) {
  return [&devices](const groth16::ProvingKey& shell, std::shared_ptr<const groth16::KeyImageStream> image,
                    uint64_t circuit_bytes, const SrsRegistry::CompactSource& compact,
                    const SrsRegistry::DevicesBroken& broken) {
    return devices(shell, image, circuit_bytes, compact, broken);
  };
}

// Key images hold the forms of H their readers use (SrsImageCache::
// SetKeyImageH): plain by default; compressed only for GPUs that decompress
// it. A host load that meets a compressed-only image decodes the .params
// (the same set) and keeps the image while the GPUs are tried again (they
// failed), removes it when the GPUs found it damaged (written again), and
// writes it again with the plain H too when the GPUs refused the set or
// none streams images (the next host load copies it).
TEST(SrsImageCache, KeyImagesHoldTheFormsOfHTheirReadersUse) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-srs-images-");
  const std::string cache = (dir.path / "images").string();
  const Load plain = LoadWith(cache, true);  // writes the circuit, compact and key images
  ASSERT_EQ(plain.stats.key_writes, 1u);
  fs::path path;
  for (const auto& f : fs::directory_iterator(cache))
    if (f.path().extension() == ".key-image") path = f.path();
  ASSERT_FALSE(path.empty());
  const uint64_t source =
      SrsImageCache::ParamsSource((fs::path(ParamDir()) / fs::path(path).filename().replace_extension("")).string());
  ASSERT_NE(source, 0u);
  auto forms = [&] {
    const groth16::KeyImageStream image(path.string(), source);
    return std::pair{image.Holds(groth16::KeySection::kH), image.Holds(groth16::KeySection::kHCompressed)};
  };
  EXPECT_EQ(forms(), std::pair(true, false)) << "the default writes the plain H only";
  // A registry of GPUs that read H compressed, with `devices` as its hook (none: null).
  auto load = [&](FakeDevices* devices) {
    return LoadWith(cache, true, groth16::KeyImageH::kCompressed,
                    devices ? HookOf(*devices) : SrsRegistry::KeyToDevices(nullptr));
  };
  const Load reused = load(nullptr);  // the set as every load below must give it (compact image and all)
  EXPECT_EQ(reused.stats.key_hits, 1u) << "a current image is read whatever forms it holds";
  EXPECT_EQ(reused.stats.key_writes, 0u);

  fs::remove(path);
  EXPECT_EQ(load(nullptr).stats.key_writes, 1u);
  EXPECT_EQ(forms(), std::pair(false, true));
  FakeDevices held;
  EXPECT_TRUE(load(&held).params->on_devices_only) << "the GPUs read H compressed";
  test::ExpectOnEmulatedDevice(held.sections[groth16::KeySection::kL], plain.params->pk.l, "l");
  EXPECT_EQ(held.sections[groth16::KeySection::kHCompressed].bytes.size(), plain.params->pk.h.size() * 48);

  // The GPUs failed: the host decodes the .params; the image stays for them.
  const auto mtime = fs::last_write_time(path);
  FakeDevices failing;
  failing.mode = FakeDevices::Mode::kThrow;
  const Load kept = load(&failing);
  EXPECT_FALSE(kept.params->on_devices_only);
  EXPECT_EQ(kept.stats.key_hits, 0u);
  EXPECT_EQ(kept.stats.key_writes + kept.stats.rebuilds, 0u) << "kept for the GPUs";
  EXPECT_EQ(fs::last_write_time(path), mtime);
  ExpectSameSet(*reused.params, *kept.params);

  // The GPUs found it damaged: removed, the .params decoded, written again.
  FakeDevices damaged;
  damaged.mode = FakeDevices::Mode::kDamaged;
  const Load rebuilt = load(&damaged);
  EXPECT_EQ(rebuilt.stats.rebuilds, 1u);
  EXPECT_EQ(rebuilt.stats.key_writes, 1u);
  EXPECT_EQ(forms(), std::pair(false, true));
  ExpectSameSet(*reused.params, *rebuilt.params);

  // The GPUs refused the set: written again with the plain H, which the
  // next host load copies.
  FakeDevices refusing;
  refusing.mode = FakeDevices::Mode::kRefuse;
  const Load both = load(&refusing);
  EXPECT_EQ(both.stats.key_writes, 1u);
  EXPECT_EQ(forms(), std::pair(true, true));
  ExpectSameSet(*reused.params, *both.params);
  const Load host = load(nullptr);
  EXPECT_EQ(host.stats.key_hits, 1u);
  EXPECT_EQ(host.stats.key_writes + host.stats.rebuilds, 0u);
}

// With every image made and a devices hook set, a witness-only GPU daemon's
// load reads the key image once, to the devices, and the circuit's shell and
// compact image: the set holds only its compact circuit and small parts,
// the devices every point of the key. A hook that refuses or throws, or a
// damaged key image, loads the set the usual way (the damaged image rebuilt).
TEST(SrsImageCache, StraightToTheDevicesWhenEveryImageIsMade) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-srs-images-");
  const std::string cache = (dir.path / "images").string();
  LoadWith(cache, true);  // writes the circuit and key images and the compact one
  const Load usual = LoadWith(cache, true);
  ASSERT_NE(usual.params->compact, nullptr);
  ASSERT_FALSE(usual.params->on_devices_only);

  auto load = [&](FakeDevices& devices) {
    SrsRegistry srs(ParamDir(), 0, cache);
    srs.SetCompactCircuits(true);
    srs.SetKeyToDevices(HookOf(devices));
    SrsRegistry::Lease lease = srs.Acquire("snap-2k");
    // Charged, before it loads, what a load straight to the devices holds: the compact image's size.
    EXPECT_EQ(lease.ChargeBytes(), fs::file_size(fs::path(cache) / "snap-2k.compact-image"));
    Load l{lease.Get(nullptr), {}};
    srs.images().WaitForWrites();
    l.stats = srs.images().stats();
    return l;
  };

  {
    // Before the set loads, its counts come from the circuit image, equal to the circuit's.
    SrsRegistry srs(ParamDir(), 0, cache);
    const CircuitDims d = srs.Acquire("snap-2k").Dims();
    EXPECT_EQ(d.constraints, usual.params->circuit.num_constraints());
    EXPECT_EQ(d.inputs, usual.params->circuit.num_inputs);
    EXPECT_EQ(d.variables, usual.params->circuit.num_variables());
  }

  FakeDevices held;
  const Load direct = load(held);
  const LoadedParams& p = *direct.params;
  ASSERT_TRUE(p.on_devices_only);
  EXPECT_TRUE(p.devices_prepared.HasBeenNotified()) << "no GPUs' preparation follows without SetOnLoaded";
  EXPECT_EQ(held.calls, 1);
  test::ExpectOnEmulatedDevice(held.sections[groth16::KeySection::kH], usual.params->pk.h, "h");
  test::ExpectOnEmulatedDevice(held.sections[groth16::KeySection::kL], usual.params->pk.l, "l");
  test::ExpectOnEmulatedDevice(held.sections[groth16::KeySection::kA], usual.params->pk.a, "a");
  test::ExpectOnEmulatedDevice(held.sections[groth16::KeySection::kBG1], usual.params->pk.b_g1, "b_g1");
  test::ExpectOnEmulatedDevice(held.sections[groth16::KeySection::kBG2], usual.params->pk.b_g2, "b_g2");
  // What the host has: the counts, densities, vk, the compact form.
  EXPECT_TRUE(p.pk.vk == usual.params->pk.vk);
  EXPECT_EQ(p.pk.h.size(), usual.params->pk.h.size());
  EXPECT_EQ(p.pk.a_density, usual.params->pk.a_density);
  EXPECT_EQ(p.pk.b_density, usual.params->pk.b_density);
  EXPECT_EQ(p.circuit.num_constraints(), usual.params->circuit.num_constraints());
  EXPECT_EQ(p.circuit.a.nonzeros(), usual.params->circuit.a.nonzeros());
  ASSERT_NE(p.compact, nullptr);
  EXPECT_EQ(held.compact, p.compact) << "the devices were given the set's own compact form, to upload beside the key";
  EXPECT_EQ(p.compact->a.columns, usual.params->compact->a.columns);
  EXPECT_EQ(p.resident_bytes, usual.params->resident_bytes);
  EXPECT_EQ(p.HeldBytes(), p.compact->Bytes() + p.pk.vk.ic.size() * sizeof(ec::G1Affine));
  EXPECT_EQ(direct.stats.circuit_writes + direct.stats.key_writes + direct.stats.compact_writes, 0u);
  EXPECT_EQ(direct.stats.rebuilds, 0u);

  for (auto mode : {FakeDevices::Mode::kRefuse, FakeDevices::Mode::kThrow}) {
    FakeDevices devices;
    devices.mode = mode;
    const Load l = load(devices);
    EXPECT_EQ(devices.calls, 1);
    EXPECT_FALSE(l.params->on_devices_only);
    ExpectSameSet(*l.params, *usual.params);
  }

  // A key image damaged inside H: the stream's digest check refuses it, the
  // usual load finds it damaged too and decodes the .params; the image is rewritten.
  fs::path key_image;
  for (const auto& f : fs::directory_iterator(cache))
    if (f.path().extension() == ".key-image") key_image = f.path();
  ASSERT_FALSE(key_image.empty());
  {
    const auto shape = filecoin::SectorShape::FromSectorSize(2048);
    const std::string params =
        (fs::path(ParamDir()) / (snapdeals::EmptySectorUpdateParamsStem(shape) + ".params")).string();
    const util::CacheSection h =
        util::CacheReader(key_image.string(), groth16::kKeyImageKind, groth16::ParamsFileSource(params)).Section("h");
    FlipByteAt(key_image.string(), h.offset + h.bytes / 2);
  }
  FakeDevices after_damage;
  const Load damaged = load(after_damage);
  EXPECT_FALSE(damaged.params->on_devices_only);
  EXPECT_EQ(damaged.stats.rebuilds, 1u);
  EXPECT_EQ(damaged.stats.key_writes, 1u);
  ExpectSameSet(*damaged.params, *usual.params);
  FakeDevices again;
  EXPECT_TRUE(load(again).params->on_devices_only) << "the rewritten image goes to the devices";
  EXPECT_NE(again.compact, nullptr);

  // A damaged compact image: the devices' CompactSource returns null (it
  // does not block them forever), they drop the key, the set loads the usual
  // way and the compact image is rewritten.
  const fs::path compact_path = fs::path(cache) / "snap-2k.compact-image";
  FlipByteAt(compact_path.string(), fs::file_size(compact_path) / 2);
  FakeDevices bad_compact;
  const Load fallback = load(bad_compact);
  EXPECT_EQ(bad_compact.calls, 1);
  EXPECT_EQ(bad_compact.compact, nullptr);
  EXPECT_FALSE(fallback.params->on_devices_only);
  EXPECT_EQ(fallback.params->compact, nullptr) << "the damaged compact image is never used";
  EXPECT_TRUE(fallback.params->pk.vk == usual.params->pk.vk);
  EXPECT_EQ(fallback.params->pk.h, usual.params->pk.h);
  EXPECT_EQ(fallback.params->circuit.a.nonzeros(), usual.params->circuit.a.nonzeros());
  EXPECT_EQ(fallback.stats.compact_writes, 1u);
  FakeDevices after;
  EXPECT_TRUE(load(after).params->on_devices_only) << "with the compact image rewritten";
}

// gpus.early_proving: the devices' hook returns before the witness bases are
// on them, and reports later that they did not land. The set is marked; the
// next job's load drops it and loads again: through the devices when the
// failure was not the image's, the usual way (the image removed, rebuilt
// from the .params) when the image was damaged. A job still holding the
// broken set keeps it (its proofs fail; the set goes when it lets go). Two
// failures that are not the image's: the usual way from then on.
TEST(SrsImageCache, ASetWhoseWitnessBasesDidNotLandLoadsAgain) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-srs-images-");
  const std::string cache = (dir.path / "images").string();
  LoadWith(cache, true);  // writes the circuit and key images and the compact one
  const Load usual = LoadWith(cache, true);
  SrsRegistry srs(ParamDir(), 0, cache);
  srs.SetCompactCircuits(true);
  FakeDevices devices;
  srs.SetKeyToDevices(HookOf(devices));
  SrsRegistry::Lease first = srs.Acquire("snap-2k");
  const std::shared_ptr<const LoadedParams> a = first.Get(nullptr);
  ASSERT_TRUE(a->on_devices_only);
  ASSERT_TRUE(bool(devices.broken));
  EXPECT_FALSE(a->DevicesBroken());
  EXPECT_EQ(srs.Acquire("snap-2k").Get(nullptr), a) << "a sound set is loaded once";

  // A device error (not the image's): the next load goes to the devices again.
  devices.broken(std::make_exception_ptr(std::runtime_error("an uncorrectable ECC error")));
  EXPECT_TRUE(a->DevicesBroken());
  EXPECT_FALSE(a->devices_health->key_image_damaged);
  const std::shared_ptr<const LoadedParams> b = srs.Acquire("snap-2k").Get(nullptr);
  EXPECT_NE(b, a) << "the broken set was dropped and loaded again";
  EXPECT_TRUE(b->on_devices_only);
  EXPECT_EQ(devices.calls, 2);
  EXPECT_TRUE(a->on_devices_only) << "the job still holding the broken set keeps it";

  // The image damaged (a digest failed in a witness section): removed, and
  // the set loads the usual way, which rewrites it.
  devices.broken(std::make_exception_ptr(util::CacheError("b_g1: digest mismatch")));
  EXPECT_TRUE(b->devices_health->key_image_damaged);
  const std::shared_ptr<const LoadedParams> c = srs.Acquire("snap-2k").Get(nullptr);
  EXPECT_NE(c, b);
  EXPECT_FALSE(c->on_devices_only) << "no key image to stream: decoded from the .params";
  EXPECT_EQ(devices.calls, 2) << "the devices' hook needs the key image";
  ExpectSameSet(*c, *usual.params);
  srs.images().WaitForWrites();
  EXPECT_EQ(srs.images().stats().key_writes, 1u) << "the removed image is written again";

  // A failure that is not the image's, twice (a read error, a device fault):
  // from then on the set loads the usual way instead of failing its first
  // jobs on every load.
  SrsRegistry again(ParamDir(), 0, cache);
  again.SetCompactCircuits(true);
  FakeDevices devices2;
  again.SetKeyToDevices(HookOf(devices2));
  SrsRegistry::Lease held = again.Acquire("snap-2k");
  ASSERT_TRUE(held.Get(nullptr)->on_devices_only);
  devices2.broken(std::make_exception_ptr(std::runtime_error("EIO")));
  EXPECT_EQ(held.Current(), held.Current()) << "Current gives the broken set without loading";
  EXPECT_TRUE(held.Current()->DevicesBroken());
  const std::shared_ptr<const LoadedParams> second = again.Acquire("snap-2k").Get(nullptr);
  EXPECT_TRUE(second->on_devices_only) << "one failure: the GPUs again";
  EXPECT_EQ(devices2.calls, 2);
  devices2.broken(std::make_exception_ptr(std::runtime_error("EIO")));
  const std::shared_ptr<const LoadedParams> third = again.Acquire("snap-2k").Get(nullptr);
  EXPECT_FALSE(third->on_devices_only) << "two failures: the usual way";
  EXPECT_EQ(devices2.calls, 2);
  ExpectSameSet(*third, *usual.params);
}

TEST(SrsImageCache, UnwritableFolderLeavesLoadsWorking) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-srs-images-");
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
