// srs.preload in the background (Prover::PreloadInBackground) on the
// fixture's 2 KiB parameters, CPU-backend workers: bad ids and missing files
// are refused before any load (the daemon then refuses to start), a job
// submitted while the set loads waits for that load and proves, the set is
// loaded once and left unheld, a second call is refused, and a Prover that
// goes while its preload is still loading waits for it (no hook called on a
// runner that is gone: the sanitizer builds run this too); the set is listed
// as loading meanwhile (the status page's "srs" entries).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "daemon/request_validation.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/verifier.hpp"
#include "prover/prover.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::prover {
namespace {

ProverOptions CpuOptions() {
  ProverOptions o;
  o.param_cache = test::ParamCache();
  o.runner.cpu_workers = true;
  return o;
}

const SrsInfo* Find(const std::vector<SrsInfo>& list, const std::string& id) {
  for (const SrsInfo& i : list)
    if (i.circuit_id == id) return &i;
  return nullptr;
}

TEST(ProverPreload, BadIdsAndMissingFilesAreRefusedBeforeAnyLoad) {
  Prover prover(CpuOptions());
  EXPECT_THROW(prover.PreloadInBackground({"snap-3k"}), UnknownCircuitError);
  // The fixture has 2 KiB parameters only; the refusal names the file it looked for.
  try {
    prover.PreloadInBackground({"snap-2k", "snap-8m"});
    ADD_FAILURE() << "a set without parameter files was accepted";
  } catch (const SrsUnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find(".params"), std::string::npos) << e.what();
  }
  // Nothing started loading, nothing is held: the refusal left no lease.
  const SrsInfo* two = Find(prover.srs().List(), "snap-2k");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->tier, SrsTier::kCold);
  EXPECT_EQ(two->ref_count, 0u);
  EXPECT_EQ(prover.srs().ResidentBytes(), 0u);
  prover.PreloadInBackground({});  // nothing to load: no thread, and the call is still free
  prover.Shutdown(std::chrono::steady_clock::now());
}

TEST(ProverPreload, AJobSubmittedDuringThePreloadWaitsForItAndProves) {
  Prover prover(CpuOptions());
  prover.PreloadInBackground({"snap-2k"});
  EXPECT_THROW(prover.PreloadInBackground({"snap-2k"}), std::logic_error);
  // Submitted at once: the 2 KiB set takes seconds to load here, so this job
  // normally finds the preload in progress (and waits on its load lock).
  daemon::ValidatedRequest v = daemon::ValidateSubmit(test::FixtureSnapRequest("preload-1"));
  // What the check needs, not the job (whose lease on the set lives as long as it).
  const filecoin::SectorShape shape = v.job->shape;
  const auto commitments = v.job->commitments;
  const std::string job_id = prover.Submit("preload-1", v.digest, std::move(v.job), v.circuit_id).job_id;
  const JobView view = prover.tracker().Await(job_id, std::chrono::steady_clock::now() + std::chrono::minutes(10));
  ASSERT_EQ(view.state, JobState::kCompleted) << view.error;
  ASSERT_EQ(view.proof.size(), 192u);
  // The proof verifies under the set the preload loaded.
  SrsRegistry::Lease lease = prover.srs().Acquire("snap-2k");
  const std::shared_ptr<const LoadedParams> params = lease.Get(nullptr);
  const std::optional<groth16::Proof> proof = groth16::DecodeProof(view.proof);
  ASSERT_TRUE(proof.has_value());
  const auto inputs = snapdeals::PartitionPublicInputs(shape, 0, commitments).AsArray();
  EXPECT_TRUE(groth16::Verify(params->pvk, *proof, inputs));
  // Loaded once: resident, and held now only by this test's lease (the
  // preload's is gone with its thread's work, the job's with the job).
  for (int i = 0; i < 200 && Find(prover.srs().List(), "snap-2k")->ref_count > 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const SrsInfo* two = Find(prover.srs().List(), "snap-2k");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->ref_count, 1u);
  EXPECT_EQ(prover.srs().ResidentBytes(), params->resident_bytes);
  prover.Shutdown(std::chrono::steady_clock::now());
}

// The registry's list (the status page's "srs") says a set is loading while
// the preload builds it, and loaded (not loading) after: polled every
// millisecond through a load that takes seconds here (655 MB decoded).
TEST(ProverPreload, TheSetShowsLoadingWhileThePreloadRunsAndLoadedAfter) {
  Prover prover(CpuOptions());
  prover.PreloadInBackground({"snap-2k"});
  bool seen_loading = false;
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  for (;;) {
    const SrsInfo* two = Find(prover.srs().List(), "snap-2k");
    ASSERT_NE(two, nullptr);
    if (two->loading) {
      seen_loading = true;
      EXPECT_EQ(two->tier, SrsTier::kCold);  // not yet in memory
    }
    if (two->tier != SrsTier::kCold) break;
    ASSERT_LT(std::chrono::steady_clock::now(), until) << "the preload never finished";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(seen_loading) << "a load of seconds was never listed as loading";
  EXPECT_FALSE(Find(prover.srs().List(), "snap-2k")->loading);
  prover.Shutdown(std::chrono::steady_clock::now());
}

TEST(ProverPreload, AProverThatGoesDuringItsPreloadWaitsForTheLoad) {
  {
    Prover prover(CpuOptions());
    prover.PreloadInBackground({"snap-2k"});
    prover.Shutdown(std::chrono::steady_clock::now());
  }  // ~Prover joins the loading thread before the hooks and the runner go
  SUCCEED();
}

}  // namespace
}  // namespace cuzk::prover
