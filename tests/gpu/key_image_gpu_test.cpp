// A key's bases straight from its key image into device memory
// (CudaBackend::LoadKeyImage, cuda/groth16/key_image_upload.hpp): a proof
// with the image's shell (no host points) equals the CPU backend's with the
// whole key for the same r, s, on keys whose sections span one chunk or
// several (records cut by the chunk edges), also when the load starts while
// the upload buffers are still being made, and with the compact circuit
// uploaded beside the key's stream (taken by Prepare, or dropped by a
// Prepare given another copy); a device without room refuses and keeps
// nothing; a damaged image (a digest, or a point's flag byte, which only the
// device checks) is an error and keeps nothing. With early proving, proofs
// started before the witness sections land equal the CPU's, and a damaged
// witness section fails them cleanly.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda/groth16/cuda_backend.hpp"
#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/key_image.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/util/cache_file.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/gpu/keyed_circuit.hpp"
#include "tests/support/key_image_flag.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

using namespace cuzk::groth16;
namespace synthetic = circuits::synthetic;

constexpr uint64_t kSource = 0x6b657931;

using test::Keyed;
using test::MakeKeyed;

// Where the compact circuit goes up: in Prepare, beside the key's stream
// (LoadKeyImage's CompactSource, then taken by Prepare), or beside the
// stream but Prepare given another copy of it (the staged one dropped).
enum class CircuitUpload { kInPrepare, kBesideTheStream, kStagedThenReplaced };

// Loads k's key image into `gpu` with `threads` reading threads (as the
// daemon does: the image's shell, bound to the circuit, then the compact
// circuit prepared), proves a random witness there and on the CPU for the
// same r, s, expects the same bytes and a verified proof, and forgets the key.
void ExpectImageProofEqualsCpu(CudaBackend& gpu, const Keyed& k, std::shared_ptr<const KeyImageStream> image,
                               unsigned threads, std::mt19937_64& rng, const std::string& what,
                               CircuitUpload upload = CircuitUpload::kInPrepare) {
  ProvingKey shell = image->Shell();
  BindCircuit(shell, k.circuit);
  const auto cc = std::make_shared<const r1cs::CompactCircuit>(r1cs::Compact(k.circuit));
  CudaBackend::CompactSource source;
  if (upload != CircuitUpload::kInPrepare) source = [cc] { return cc; };
  const CudaBackendStats before = gpu.Stats();
  ASSERT_TRUE(gpu.LoadKeyImage(shell, image, cc->Bytes(), threads, source)) << what;
  EXPECT_TRUE(gpu.HoldsOnDevice(shell, nullptr)) << what;
  const CudaBackendStats loaded = gpu.Stats();
  const uint64_t staged = upload == CircuitUpload::kInPrepare ? 0 : cc->Bytes();
  EXPECT_EQ(loaded.image_circuit_bytes - before.image_circuit_bytes, staged) << what;
  EXPECT_EQ(loaded.resident_circuit_bytes, staged) << what << ": the staged circuit is counted";
  if (upload == CircuitUpload::kStagedThenReplaced) {
    const r1cs::CompactCircuit copy = r1cs::Compact(k.circuit);  // equal, at another address
    gpu.Prepare(shell, &k.circuit, &copy);
  } else {
    gpu.Prepare(shell, &k.circuit, cc.get());
  }
  EXPECT_TRUE(gpu.HoldsOnDevice(shell, &k.circuit)) << what;
  EXPECT_EQ(gpu.Stats().resident_circuit_bytes, cc->Bytes()) << what << ": one circuit on the device, not two";
  // Taken only when Prepare is given the very compact form that was staged
  // (an equal copy elsewhere is uploaded again).
  EXPECT_EQ(gpu.Stats().image_circuits_taken - before.image_circuits_taken,
            upload == CircuitUpload::kBesideTheStream ? 1u : 0u)
      << what;
  const r1cs::Assignment z = synthetic::Witness(k.params, rng());
  const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
  CpuBackend cpu;
  const Proof want = ProveWithRandomness(cpu, k.pk, k.circuit, z, r, s);
  const Proof got = ProveWithRandomness(gpu, shell, k.circuit, z, r, s, {.witness_only = true});
  EXPECT_EQ(EncodeProof(got), EncodeProof(want)) << what;
  EXPECT_TRUE(Verify(PrepareVerifyingKey(shell.vk), got, z.PublicInputs())) << what;
  const CudaBackendStats st = gpu.Stats();
  std::printf("  %s: key image to the device %.1f ms in all (buffers %.1f ms), %llu bytes; circuit beside it %.1f ms\n",
              what.c_str(), st.image_bases_ms, st.image_buffers_ms, (unsigned long long)st.image_bases_bytes,
              st.image_circuit_ms);
  gpu.ForgetKey(shell);
  EXPECT_EQ(gpu.Stats().resident_circuit_bytes, 0u) << what;
}

TEST(KeyImageGpuTest, ProofFromTheImageShellEqualsTheCpuProof) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  test::TempDir dir("cuzk-key-image-gpu-");
  CudaBackend gpu;
  // 2^10: every section inside one chunk; 2^19: H is 54.5 MB (two chunks, a cut record).
  for (unsigned log_size : {10u, 19u}) {
    const Keyed k = MakeKeyed(log_size);
    const std::string path = dir.File("k" + std::to_string(log_size) + ".key-image");
    WriteKeyImage(k.pk, path, kSource);
    const auto image = std::make_shared<const KeyImageStream>(path, kSource);
    const std::string n = "2^" + std::to_string(log_size);
    ExpectImageProofEqualsCpu(gpu, k, image, 4, rng, n);
    ExpectImageProofEqualsCpu(gpu, k, image, 4, rng, n + ", circuit beside the stream",
                              CircuitUpload::kBesideTheStream);
    ExpectImageProofEqualsCpu(gpu, k, image, 4, rng, n + ", staged circuit replaced",
                              CircuitUpload::kStagedThenReplaced);
  }
}

// A load that starts while PrepareKeyImageBuffers is still making the
// buffers (the daemon's srs.preload at start): the loading thread makes
// what the warming thread has not yet (each worker's buffers once, by
// whichever comes first) before it streams, and the proof is still the
// CPU's; then a load with another thread count (a fresh uploader).
TEST(KeyImageGpuTest, ALoadBesideTheBuffersWarmingGivesTheCpuProof) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  test::TempDir dir("cuzk-key-image-gpu-");
  CudaBackend gpu;
  const Keyed k = MakeKeyed(19);
  const std::string path = dir.File("k19.key-image");
  WriteKeyImage(k.pk, path, kSource);
  const auto image = std::make_shared<const KeyImageStream>(path, kSource);
  gpu.PrepareKeyImageBuffers(2);  // warming starts; the load below does not wait for it
  ExpectImageProofEqualsCpu(gpu, k, image, 2, rng, "2 threads, beside the warming");
  ExpectImageProofEqualsCpu(gpu, k, image, 3, rng, "3 threads, a fresh uploader");
}

TEST(KeyImageGpuTest, NoRoomOrADamagedImageKeepsNothing) {
  CUZK_REQUIRE_GPU();
  test::TempDir dir("cuzk-key-image-gpu-");
  const Keyed k = MakeKeyed(12);
  const std::string path = dir.File("k.key-image");
  WriteKeyImage(k.pk, path, kSource);
  {
    CudaBackend small({.resident_bases_bytes = 0});
    const auto image = std::make_shared<const KeyImageStream>(path, kSource);
    const ProvingKey shell = image->Shell();
    bool asked = false;
    EXPECT_FALSE(small.LoadKeyImage(shell, image, 0, 2, [&] {
      asked = true;
      return std::make_shared<const r1cs::CompactCircuit>(r1cs::Compact(k.circuit));
    }));
    EXPECT_FALSE(asked) << "a key that does not fit uploads no circuit";
    EXPECT_FALSE(small.HoldsOnDevice(shell, nullptr));
    EXPECT_EQ(small.Stats().resident_base_bytes, 0u);
    EXPECT_EQ(small.Stats().resident_circuit_bytes, 0u);
  }
  // One byte of H flipped: the digest refuses it after the upload, which is dropped.
  std::vector<uint8_t> bytes = test::ReadAll(path);
  const util::CacheSection h = util::CacheReader(path, kKeyImageKind, kSource).Section("h");
  bytes.at(h.offset + h.bytes / 3) ^= 0x01;
  test::WriteAll(path, bytes);
  CudaBackend gpu;
  const auto image = std::make_shared<const KeyImageStream>(path, kSource);
  const ProvingKey shell = image->Shell();
  const auto cc = std::make_shared<const r1cs::CompactCircuit>(r1cs::Compact(k.circuit));
  EXPECT_THROW(gpu.LoadKeyImage(shell, image, 0, 2, [cc] { return cc; }), util::CacheError);
  EXPECT_FALSE(gpu.HoldsOnDevice(shell, nullptr));
  EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
  EXPECT_EQ(gpu.Stats().resident_circuit_bytes, 0u) << "the circuit uploaded beside it went with the key";
  // A point's flag byte set, every digest intact: the device's check (the
  // host does not look at the flags here) refuses it, naming the point. Not
  // a first or last point: Shell() reads those and checks them on the host.
  for (const auto& [section, index] : {std::pair{KeySection::kH, uint64_t(k.pk.h.size() / 2)},
                                       std::pair{KeySection::kBG2, uint64_t(k.pk.b_g2.size() / 2)}}) {
    WriteKeyImage(k.pk, path, kSource);
    test::SetFlagInKeyImage(path, kSource, section, index);
    const auto flagged = std::make_shared<const KeyImageStream>(path, kSource);
    const ProvingKey flagged_shell = flagged->Shell();
    try {
      gpu.LoadKeyImage(flagged_shell, flagged, 0, 2);
      ADD_FAILURE() << "a point with its flag set reached the device";
    } catch (const util::CacheError& e) {
      const std::string want =
          std::string("section ") + KeyImageStream::Name(section) + " point " + std::to_string(index) + " ";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
    EXPECT_FALSE(gpu.HoldsOnDevice(flagged_shell, nullptr));
    EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
  }
}

// H read in its compressed form (48-byte records decompressed on the GPU,
// CudaBackendOptions::compressed_h = kAlways): the proof is still the CPU's,
// over one chunk and several; kNever reads the plain records. A compressed
// record that is not a point (x above p, digests made anew) is refused
// naming it, and nothing is kept.
TEST(KeyImageGpuTest, CompressedHGivesTheCpuProofAndABadRecordIsRefused) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  test::TempDir dir("cuzk-key-image-gpu-");
  using Policy = CudaBackendOptions::CompressedH;
  for (unsigned log_size : {10u, 19u}) {
    const Keyed k = MakeKeyed(log_size);
    const std::string path = dir.File("k" + std::to_string(log_size) + ".key-image");
    WriteKeyImage(k.pk, path, kSource);
    const auto image = std::make_shared<const KeyImageStream>(path, kSource);
    for (Policy policy : {Policy::kAlways, Policy::kNever}) {
      CudaBackend gpu({.compressed_h = policy});
      const std::string what =
          "2^" + std::to_string(log_size) + (policy == Policy::kAlways ? ", compressed H" : ", plain H");
      ExpectImageProofEqualsCpu(gpu, k, image, 4, rng, what);
      EXPECT_EQ(gpu.Stats().image_h_compressed, policy == Policy::kAlways ? 1u : 0u) << what;
    }
  }
  const Keyed k = MakeKeyed(12);
  const std::string path = dir.File("bad.key-image");
  WriteKeyImage(k.pk, path, kSource);
  const uint64_t bad = k.pk.h.size() / 2;
  std::array<uint8_t, 48> above_p;
  above_p.fill(0xff);
  above_p[47] = 0x3f;  // no flags; x = 2^382 - 1 > p
  test::SetCompressedHRecord(path, kSource, bad, above_p);
  CudaBackend gpu({.compressed_h = Policy::kAlways});
  const auto image = std::make_shared<const KeyImageStream>(path, kSource);
  const ProvingKey shell = image->Shell();
  try {
    gpu.LoadKeyImage(shell, image, 0, 2);
    ADD_FAILURE() << "a compressed record that is not a point reached the device";
  } catch (const util::CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("section h48 point " + std::to_string(bad) + " "), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(gpu.HoldsOnDevice(shell, nullptr));
  EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
  // A record with its infinity bit set (which the decompression would take
  // as the point at infinity): the host's check refuses it by name.
  WriteKeyImage(k.pk, path, kSource);
  std::array<uint8_t, 48> infinity{};
  infinity[47] = 0x80;
  test::SetCompressedHRecord(path, kSource, bad + 1, infinity);
  const auto flagged = std::make_shared<const KeyImageStream>(path, kSource);
  const ProvingKey flagged_shell = flagged->Shell();
  try {
    gpu.LoadKeyImage(flagged_shell, flagged, 0, 2);
    ADD_FAILURE() << "a compressed record at infinity reached the device";
  } catch (const util::CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("section h48 point " + std::to_string(bad + 1) + " "), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
}

// Holds a backend's witness stream (CudaBackendOptions::before_witness_stream)
// until Release; a test also releases it on every way out (ReleaseOnExit,
// declared after what waits for the stream: the proofs' futures, the
// backend), so a failed assertion ends the test instead of hanging it.
class HeldStream {
 public:
  std::function<void()> Hook() {
    return [f = released_] { f.wait(); };
  }
  void Release() {
    if (!done_) done_ = true, release_.set_value();
  }

 private:
  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
  bool done_ = false;
};
struct ReleaseOnExit {
  HeldStream& held;
  ~ReleaseOnExit() { held.Release(); }
};

// Until `reached` holds for the backend's stats, or 120 s (the caller's
// assertion then reports what was missing): what another thread does
// (a deferral, a cancel, a table build) is awaited, never slept for.
void WaitForStats(const CudaBackend& gpu, const std::function<bool(const CudaBackendStats&)>& reached) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!reached(gpu.Stats()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

// gpus.early_proving: LoadKeyImage returns once H is resident, the witness
// sections stream behind it (held here by before_witness_stream until the
// proofs have started). Proofs started meanwhile run their H part, defer
// their witness MSMs and wait in ProveFinish; once the sections land they
// finish, equal to the CPU's proofs; the shifted H table is built after the
// landing, and a proof after it runs straight through, over the table.
TEST(KeyImageGpuTest, EarlyProvingDefersTheWitnessMsmsUntilTheSectionsLand) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  test::TempDir dir("cuzk-key-image-gpu-");
  const Keyed k = MakeKeyed(19);  // several chunks a section
  const std::string path = dir.File("k.key-image");
  WriteKeyImage(k.pk, path, kSource);
  std::promise<CudaBackend::Landed> landed;  // before the backend: its stream reports into it
  HeldStream held;
  // With shifted H bases too: the table is built once the sections land.
  CudaBackend gpu({.lanes = 2, .shifted_h = true, .early_proving = true, .before_witness_stream = held.Hook()});
  ReleaseOnExit release_on_exit{held};
  auto image = std::make_shared<const KeyImageStream>(path, kSource);
  ProvingKey shell = image->Shell();
  BindCircuit(shell, k.circuit);
  const auto cc = std::make_shared<const r1cs::CompactCircuit>(r1cs::Compact(k.circuit));
  ASSERT_TRUE(gpu.LoadKeyImage(
      shell, std::move(image), cc->Bytes(), 3, [cc] { return cc; },
      [&landed](const CudaBackend::Landed& l) { landed.set_value(l); }));
  EXPECT_EQ(gpu.Stats().keys_landing, 1u) << "the witness sections are still to come";
  EXPECT_TRUE(gpu.HoldsOnDevice(shell, nullptr)) << "streaming: proofs never read the host's points";
  gpu.Prepare(shell, &k.circuit, cc.get());

  constexpr int kEarly = 3;
  CpuBackend cpu;
  struct Case {
    r1cs::Assignment z;
    ff::Fr r, s;
    std::vector<uint8_t> want;
  };
  std::vector<Case> cases;
  for (int i = 0; i < kEarly + 1; ++i) {
    Case c{synthetic::Witness(k.params, rng()), ff::Fr::Random(rng), ff::Fr::Random(rng), {}};
    const ProofBytes want = EncodeProof(ProveWithRandomness(cpu, k.pk, k.circuit, c.z, c.r, c.s));
    c.want.assign(want.begin(), want.end());
    cases.push_back(std::move(c));
  }
  std::vector<std::future<ProofBytes>> early;
  ReleaseOnExit release_before_the_futures{held};  // their destructors wait for the proofs
  for (int i = 0; i < kEarly; ++i) {
    early.push_back(std::async(std::launch::async, [&, i] {
      return EncodeProof(
          ProveWithRandomness(gpu, shell, k.circuit, cases[i].z, cases[i].r, cases[i].s, {.witness_only = true}));
    }));
  }
  // Each proof defers once its H part is done (no sleep decides it: the
  // stream cannot start before the release below).
  WaitForStats(gpu, [](const CudaBackendStats& st) { return st.deferred_proofs >= uint64_t(kEarly); });
  ASSERT_EQ(gpu.Stats().deferred_proofs, uint64_t(kEarly)) << "every early proof left its witness MSMs queued";
  for (auto& f : early)
    EXPECT_EQ(f.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
        << "no proof finishes before the landing";
  held.Release();
  for (int i = 0; i < kEarly; ++i) {
    const ProofBytes got = early[i].get();
    EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), cases[i].want) << "early proof " << i;
  }
  const CudaBackend::Landed l = landed.get_future().get();
  EXPECT_FALSE(l.error);
  EXPECT_EQ(l.deferred, uint64_t(kEarly));
  EXPECT_EQ(l.bytes, (k.pk.l.size() + k.pk.a.size() + k.pk.b_g1.size()) * sizeof(ec::G1Affine) +
                         k.pk.b_g2.size() * sizeof(ec::G2Affine));
  EXPECT_EQ(gpu.Stats().keys_landing, 0u);
  WaitForStats(gpu, [](const CudaBackendStats& st) { return st.shifted_h_bytes > 0; });
  EXPECT_GT(gpu.Stats().shifted_h_bytes, 0u) << "the shifted H table, built after the landing";
  const uint64_t shifted_before = gpu.Stats().shifted_h_msms;
  const Case& after = cases[kEarly];
  const ProofBytes got =
      EncodeProof(ProveWithRandomness(gpu, shell, k.circuit, after.z, after.r, after.s, {.witness_only = true}));
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), after.want) << "the proof after the landing";
  EXPECT_EQ(gpu.Stats().deferred_proofs, uint64_t(kEarly)) << "after the landing nothing defers";
  EXPECT_EQ(gpu.Stats().shifted_h_msms, shifted_before + 1) << "the proof after the landing ran over the table";
  gpu.ForgetKey(shell);
  EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
}

// ForgetKey while the witness sections stream: the stream is cancelled at
// its next chunk (a 32 GiB key's would otherwise take ~15 s from a disk),
// the proof queued on it fails (its key is going), on_landed says
// "cancelled", and the key's memory goes.
TEST(KeyImageGpuTest, EarlyProvingForgetKeyCancelsTheStream) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  test::TempDir dir("cuzk-key-image-gpu-");
  const Keyed k = MakeKeyed(19);
  const std::string path = dir.File("k.key-image");
  WriteKeyImage(k.pk, path, kSource);
  std::promise<CudaBackend::Landed> landed;  // before the backend: its stream reports into it
  HeldStream held;
  CudaBackend gpu({.early_proving = true, .before_witness_stream = held.Hook()});
  ReleaseOnExit release_on_exit{held};
  auto image = std::make_shared<const KeyImageStream>(path, kSource);
  ProvingKey shell = image->Shell();
  BindCircuit(shell, k.circuit);
  ASSERT_TRUE(gpu.LoadKeyImage(shell, std::move(image), 0, 2, {},
                               [&landed](const CudaBackend::Landed& l) { landed.set_value(l); }));
  gpu.Prepare(shell, &k.circuit);
  const r1cs::Assignment z = synthetic::Witness(k.params, rng());
  const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
  std::future<Proof> deferred = std::async(
      std::launch::async, [&] { return ProveWithRandomness(gpu, shell, k.circuit, z, r, s, {.witness_only = true}); });
  ReleaseOnExit release_before_the_future{held};
  WaitForStats(gpu, [](const CudaBackendStats& st) { return st.deferred_proofs >= 1; });
  ASSERT_EQ(gpu.Stats().deferred_proofs, 1u);
  std::future<void> forget = std::async(std::launch::async, [&] { gpu.ForgetKey(shell); });
  ReleaseOnExit release_before_forget{held};
  WaitForStats(gpu, [](const CudaBackendStats& st) { return st.landings_cancelled >= 1; });
  ASSERT_EQ(gpu.Stats().landings_cancelled, 1u) << "ForgetKey cancels the stream before it waits";
  held.Release();  // the stream now starts, sees the cancel at its first chunk
  forget.get();
  EXPECT_THROW(deferred.get(), std::runtime_error);
  const CudaBackend::Landed l = landed.get_future().get();
  EXPECT_TRUE(l.error);
  EXPECT_TRUE(l.cancelled);
  EXPECT_EQ(l.deferred, 1u);
  EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
  EXPECT_EQ(gpu.Stats().keys_landing, 0u);
}

// A witness section damaged (its digest fails while it streams behind the
// call): the deferred proof gets the image's error (not a hang, not a wrong
// proof), every later ProveStart with the key refuses naming it, the key
// no longer counts as held, on_landed reports it, and ForgetKey frees it.
TEST(KeyImageGpuTest, EarlyProvingWithADamagedWitnessSectionFailsItsProofs) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  test::TempDir dir("cuzk-key-image-gpu-");
  const Keyed k = MakeKeyed(12);
  const std::string path = dir.File("k.key-image");
  WriteKeyImage(k.pk, path, kSource);
  std::vector<uint8_t> bytes = test::ReadAll(path);
  const util::CacheSection b_g1 = util::CacheReader(path, kKeyImageKind, kSource).Section("b_g1");
  bytes.at(b_g1.offset + b_g1.bytes / 2) ^= 0x01;
  test::WriteAll(path, bytes);
  std::promise<CudaBackend::Landed> landed;  // before the backend: its stream reports into it
  HeldStream held;
  CudaBackend gpu({.early_proving = true, .before_witness_stream = held.Hook()});
  ReleaseOnExit release_on_exit{held};
  auto image = std::make_shared<const KeyImageStream>(path, kSource);
  ProvingKey shell = image->Shell();
  BindCircuit(shell, k.circuit);
  ASSERT_TRUE(gpu.LoadKeyImage(shell, std::move(image), 0, 2, {}, [&landed](const CudaBackend::Landed& l) {
    landed.set_value(l);
  })) << "H is sound: the load returns before the damage is read";
  gpu.Prepare(shell, &k.circuit);
  const r1cs::Assignment z = synthetic::Witness(k.params, rng());
  const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
  std::future<Proof> deferred = std::async(
      std::launch::async, [&] { return ProveWithRandomness(gpu, shell, k.circuit, z, r, s, {.witness_only = true}); });
  ReleaseOnExit release_before_the_future{held};  // its destructor waits for the proof
  WaitForStats(gpu, [](const CudaBackendStats& st) { return st.deferred_proofs >= 1; });
  ASSERT_EQ(gpu.Stats().deferred_proofs, 1u);
  held.Release();
  EXPECT_THROW(deferred.get(), util::CacheError);
  const CudaBackend::Landed l = landed.get_future().get();
  ASSERT_TRUE(l.error);
  EXPECT_EQ(l.deferred, 1u);
  EXPECT_FALSE(gpu.HoldsOnDevice(shell, nullptr));
  try {
    ProveWithRandomness(gpu, shell, k.circuit, z, r, s, {.witness_only = true});
    ADD_FAILURE() << "a proof with a key whose witness bases did not load";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("did not load"), std::string::npos) << e.what();
  }
  gpu.ForgetKey(shell);
  EXPECT_EQ(gpu.Stats().resident_base_bytes, 0u);
  EXPECT_EQ(gpu.Stats().keys_landing, 0u);
}

}  // namespace
}  // namespace cuzk::cuda
