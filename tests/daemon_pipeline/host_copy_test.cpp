// Giving a parameter set's host copy back once the GPUs hold theirs
// (prover/host_copy.hpp, SrsRegistry::DevicesHold; issue 17's host memory).
// Runs without a GPU: what the GPUs' side reports (DevicesHold) is called
// here directly, as ProofRunner::PrepareDevices calls it once every
// CudaBackend HoldsOnDevice.
//   - ReleaseHostCopy on a synthetic set: sizes and the first and last
//     element of every array stay, the pages between read as zeros, the
//     bytes given back are exactly those pages, a second call gives nothing,
//     the circuit only when asked.
//   - Through the registry on the fixture's 2 KiB set, with images being
//     written: the release waits for the writer (the images read back equal
//     to a fresh decode), then the set's held bytes and its budget charge
//     shrink by what was given back.
//   - A load asked for from a thread at a lowered priority (a job's
//     synthesis thread) runs at the registry's priority.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/util/thread_priority.hpp"
#include "memory/budget.hpp"
#include "prover/host_copy.hpp"
#include "prover/srs_registry.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::prover {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

template <class T, class A>
void Fill(std::vector<T, A>& v, size_t n, uint8_t byte) {
  v.resize(n);
  std::memset(static_cast<void*>(v.data()), byte, n * sizeof(T));
}

template <class T>
bool AllBytes(const T& x, uint8_t byte) {
  const auto* p = reinterpret_cast<const uint8_t*>(&x);
  for (size_t i = 0; i < sizeof(T); ++i)
    if (p[i] != byte) return false;
  return true;
}

// The pages strictly between the first and last element, counted the
// obvious way: every page-aligned address in (first end, last begin].
template <class T, class A>
uint64_t InteriorPageBytes(const std::vector<T, A>& v) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t first_end = reinterpret_cast<uintptr_t>(v.data()) + sizeof(T);
  const uintptr_t last_begin = reinterpret_cast<uintptr_t>(v.data()) + (v.size() - 1) * sizeof(T);
  uint64_t bytes = 0;
  for (uintptr_t a = (first_end + page - 1) / page * page; a + page <= last_begin; a += page) bytes += page;
  return bytes;
}

TEST(HostCopy, ReleasesTheInteriorPagesOnceAndKeepsSizesAndEnds) {
  LoadedParams p;
  Fill(p.pk.h, 50000, 0xA5);
  Fill(p.pk.l, 30000, 0xA5);
  Fill(p.pk.a, 2, 0xA5);  // too short to have interior pages
  Fill(p.pk.b_g1, 20000, 0xA5);
  Fill(p.pk.b_g2, 20000, 0xA5);
  Fill(p.circuit.a.values, 40000, 0x5A);
  Fill(p.circuit.a.columns, 40000, 0x5A);
  uint64_t expected = 0;
  for (const auto* v : {&p.pk.h, &p.pk.l, &p.pk.b_g1}) expected += InteriorPageBytes(*v);
  expected += InteriorPageBytes(p.pk.b_g2);
  ASSERT_GT(expected, 0u);

  // Without the circuit: the key's pages only.
  const HostRelease r = ReleaseHostCopy(p, /*circuit=*/false);
  EXPECT_EQ(r.bytes, expected);
  EXPECT_FALSE(r.circuit);
  EXPECT_TRUE(p.host_released.load());
  EXPECT_FALSE(p.circuit_released.load());
  EXPECT_EQ(p.released_bytes.load(), expected);
  EXPECT_EQ(p.pk.h.size(), 50000u);
  EXPECT_EQ(p.pk.b_g2.size(), 20000u);
  for (const auto* v : {&p.pk.h, &p.pk.l, &p.pk.b_g1}) {
    EXPECT_TRUE(AllBytes(v->front(), 0xA5));
    EXPECT_TRUE(AllBytes(v->back(), 0xA5));
    EXPECT_TRUE(AllBytes((*v)[v->size() / 2], 0));  // its page went: zeros
  }
  EXPECT_TRUE(AllBytes(p.pk.b_g2[10000], 0));
  EXPECT_TRUE(AllBytes(p.pk.a[0], 0xA5) && AllBytes(p.pk.a[1], 0xA5));
  EXPECT_TRUE(AllBytes(p.circuit.a.values[20000], 0x5A));  // the circuit was not asked for

  // Once per set.
  EXPECT_EQ(ReleaseHostCopy(p, /*circuit=*/true).bytes, 0u);
  EXPECT_TRUE(AllBytes(p.circuit.a.values[20000], 0x5A));
}

TEST(HostCopy, CircuitMatricesWhenAsked) {
  LoadedParams p;
  Fill(p.pk.h, 10000, 0xA5);
  Fill(p.circuit.b.values, 40000, 0x5A);
  Fill(p.circuit.b.columns, 40000, 0x5A);
  Fill(p.circuit.b.row_offsets, 40001, 0x5A);
  const uint64_t circuit_bytes = InteriorPageBytes(p.circuit.b.values) + InteriorPageBytes(p.circuit.b.columns) +
                                 InteriorPageBytes(p.circuit.b.row_offsets);
  const HostRelease r = ReleaseHostCopy(p, /*circuit=*/true);
  EXPECT_TRUE(r.circuit);
  EXPECT_TRUE(p.circuit_released.load());
  EXPECT_EQ(r.bytes, InteriorPageBytes(p.pk.h) + circuit_bytes);
  EXPECT_EQ(p.circuit.b.rows(), 40000u);  // counts read the vectors' sizes: unchanged
  EXPECT_EQ(p.circuit.b.nonzeros(), 40000u);
  EXPECT_TRUE(AllBytes(p.circuit.b.values[20000], 0));
  EXPECT_TRUE(AllBytes(p.circuit.b.values.back(), 0x5A));
}

std::string ParamDir() {
  if (const char* d = std::getenv("CUZK_PIPELINE_TEST_PARAMS")) return d;
  return CUZK_PIPELINE_PARAM_CACHE;
}

bool HaveFixture() {
  const auto shape = filecoin::SectorShape::FromSectorSize(2048);
  return fs::exists(fs::path(ParamDir()) / (snapdeals::EmptySectorUpdateParamsStem(shape) + ".params"));
}

TEST(HostCopy, RegistryReleasesAfterTheImageWriterAndShrinksTheCharge) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  TempDir dir("cuzk-host-copy-");
  const std::string cache = (dir.path / "images").string();
  memory::Budget budget(uint64_t(16) << 30);
  std::shared_ptr<const LoadedParams> p;
  uint64_t charged = 0;
  {
    SrsRegistry srs(ParamDir(), 0, cache);
    srs.AttachBudget(&budget, std::chrono::hours(1));
    SrsRegistry::Lease lease = srs.Acquire("snap-2k");
    p = lease.Get(nullptr);  // a miss: both images are queued for writing now
    charged = budget.reserved();
    EXPECT_EQ(charged, p->resident_bytes);
    // The GPUs' side is done at once; the writer still reads the host copy,
    // so nothing may go before it is done (the images below prove it).
    srs.DevicesHold(p, /*circuit_too=*/true);
    srs.images().WaitForWrites();
    EXPECT_EQ(srs.images().stats().key_writes, 1u);
    EXPECT_EQ(srs.images().stats().circuit_writes, 1u);
    ASSERT_TRUE(p->host_released.load());
    EXPECT_TRUE(p->circuit_released.load());
    const uint64_t released = p->released_bytes.load();
    EXPECT_GT(released, p->resident_bytes / 2);  // the 2 KiB set is mostly points and matrices
    EXPECT_EQ(p->HeldBytes(), p->resident_bytes - released);
    EXPECT_EQ(srs.ResidentBytes(), p->HeldBytes());
    EXPECT_EQ(budget.reserved(), charged - released);
    EXPECT_EQ(lease.ChargeBytes(), p->HeldBytes());
    // The counts a witness-only partition needs are intact.
    EXPECT_EQ(p->circuit.num_constraints(), p->circuit.a.row_offsets.size() - 1);
    EXPECT_EQ(p->pk.domain_size(), p->pk.h.size() + 1);
  }
  // The images were written before the pages went: equal to a fresh decode.
  SrsRegistry from_images(ParamDir(), 0, cache);
  const auto imaged = from_images.Acquire("snap-2k").Get(nullptr);
  EXPECT_EQ(from_images.images().stats().key_hits, 1u);
  EXPECT_EQ(from_images.images().stats().circuit_hits, 1u);
  SrsRegistry fresh(ParamDir(), 0);
  const auto decoded = fresh.Acquire("snap-2k").Get(nullptr);
  EXPECT_EQ(imaged->pk.h, decoded->pk.h);
  EXPECT_EQ(imaged->pk.l, decoded->pk.l);
  EXPECT_EQ(imaged->pk.b_g2, decoded->pk.b_g2);
  EXPECT_EQ(imaged->circuit.a.values, decoded->circuit.a.values);
  EXPECT_EQ(imaged->circuit.c.columns, decoded->circuit.c.columns);
  EXPECT_FALSE(imaged->host_released.load());  // nothing held it on a GPU
}

// The unload hook (ProofRunner::ForgetOnDevices drops the GPUs' copies from
// it): called once, with the set, when its last holder lets go after an
// eviction; not while a job still holds it; not after SetOnUnloaded(nullptr).
TEST(HostCopy, UnloadHookRunsWhenTheLastHolderLetsGo) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  SrsRegistry srs(ParamDir(), 0);
  std::vector<std::string> unloaded;
  srs.SetOnUnloaded([&](const LoadedParams& p) {
    EXPECT_GT(p.pk.h.size(), 0u);  // called before the set's memory goes
    unloaded.push_back(p.circuit_id);
  });
  std::shared_ptr<const LoadedParams> p = srs.Acquire("snap-2k").Get(nullptr);
  EXPECT_TRUE(srs.Evict("snap-2k").was_loaded);
  EXPECT_TRUE(unloaded.empty());  // a job still holds it
  p.reset();
  EXPECT_EQ(unloaded, std::vector<std::string>{"snap-2k"});

  // A hook cleared first is not called.
  p = srs.Acquire("snap-2k").Get(nullptr);
  srs.Evict("snap-2k");
  srs.SetOnUnloaded(nullptr);
  p.reset();
  EXPECT_EQ(unloaded.size(), 1u);
}

// EvictSRS of a set being loaded is refused at once (the loading lease holds
// it), not after the load: the refusal used to wait for the load lock, and
// an EvictSRS call's deadline ran out behind a 2 KiB load on a busy machine.
// The load hook (SetOnLoaded: called while the load lock is held) keeps the
// load from ending until EvictSRS has answered, however fast the machine; it
// lets go after 5 s at most, so an EvictSRS that waits for the load lock
// answers late (and fails the test) instead of never.
TEST(HostCopy, EvictDuringALoadIsRefusedAtOnce) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  SrsRegistry srs(ParamDir(), 0);
  std::promise<bool> in_load;  // true: the hook runs (load lock held); false: the load failed
  std::promise<void> answered;
  std::shared_future<void> evict_answered = answered.get_future().share();
  srs.SetOnLoaded([&](const std::string&, const std::shared_ptr<const LoadedParams>&) {
    in_load.set_value(true);
    evict_answered.wait_for(std::chrono::seconds(5));
  });
  SrsRegistry::Lease lease = srs.Acquire("snap-2k");
  std::string load_error;
  std::thread loader([&] {
    try {
      lease.Get(nullptr);  // ~1-6 s for the 2 KiB set
    } catch (const std::exception& e) {
      load_error = e.what();
      in_load.set_value(false);
    }
  });
  std::future<bool> holding = in_load.get_future();
  const bool load_running_at_call =
      holding.wait_for(test::Scaled(std::chrono::seconds(300))) == std::future_status::ready && holding.get();
  double ms = 0;
  if (load_running_at_call) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(srs.Evict("snap-2k"), SrsInUseError);
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  answered.set_value();
  loader.join();
  srs.SetOnLoaded(nullptr);
  ASSERT_TRUE(load_running_at_call) << "the load never reached its end (load lock held): " << load_error;
  EXPECT_LT(ms, 500.0) << "EvictSRS waited for the load";
}

// A job that finds its set not loaded asks for it from a synthesis thread,
// whose priority is lowered (PipelineConfig::synthesis_nice): the load (and
// its reading threads, which would inherit that) runs at the registry's own
// priority instead, the caller's stays as it was.
TEST(HostCopy, ALoweredCallersLoadRunsAtTheRegistrysPriority) {
  if (!HaveFixture()) GTEST_SKIP() << "no 2 KiB parameters in " << ParamDir() << " (ctest -R daemon_fixture)";
  const int base = util::ThisThreadNice();
  bool can_lower = false;
  std::thread([&] { can_lower = util::LowerThisThreadPriority(1); }).join();
  if (!can_lower || base > 19 - 10) GTEST_SKIP() << "cannot lower a thread's priority here (nice " << base << ")";
  SrsRegistry srs(ParamDir(), 0);
  int load_nice = -100;  // the load hook runs on the loading thread
  srs.SetOnLoaded(
      [&](const std::string&, const std::shared_ptr<const LoadedParams>&) { load_nice = util::ThisThreadNice(); });
  int caller_before = -100, caller_after = -100;
  util::RunAtLowPriority(10, [&] {
    caller_before = util::ThisThreadNice();
    SrsRegistry::Lease lease = srs.Acquire("snap-2k");
    EXPECT_NE(lease.Get(nullptr), nullptr);
    caller_after = util::ThisThreadNice();
  });
  srs.SetOnLoaded(nullptr);
  EXPECT_EQ(caller_before, base + 10);
  EXPECT_EQ(load_nice, base) << "the load ran at the caller's lowered priority";
  EXPECT_EQ(caller_after, base + 10);
}

}  // namespace
}  // namespace cuzk::prover
