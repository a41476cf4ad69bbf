// Which GPU a job is on, as the daemon tells it (issue 18): GetStatus's
// GPUStatus.current_job_id / current_proof_kind and
// SubmitProofResponse.assigned_gpu (the GPUs' ordinals, comma-separated; ""
// until a partition reaches a GPU, and on the CPU backend), through a real
// daemon. A retried submit (same request_id and inputs) joins the job, so its
// answer says where the job runs or ran. [testing] gpu_delay holds the
// partition in the GPU stage (a 2 KiB proof's own GPU time is milliseconds).
//
// One test per kind of host, each skipped on the other: on a GPU host
// (tools/gpu-host/daemon_tests_run.sh runs this executable on the H200) the
// fields name the GPU; without one they name none while the partition is in
// the same stage on a CPU-backend worker.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

// A retry of `req`: it must join job `id` (not start another one).
v1::SubmitProofResponse Retry(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& req, const std::string& id) {
  v1::SubmitProofResponse resp;
  const grpc::Status s = Submit(stub, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resp.job_id(), id) << "the retry started another job";
  EXPECT_EQ(resp.queue_position(), 0u);
  return resp;
}

// Waits (at most 120 s) until GET /status shows partition 0 of `id` in the
// GPU stage; false if it never did.
bool WaitForGpuStage(const DaemonProcess& d, const std::string& id) {
  for (const auto end = Clock::now() + seconds(120); Clock::now() < end;) {
    const nlohmann::json status = GetStatusJson(d.status_port());  // named: a range-for over a member of
    for (const auto& job : status.at("pipelines")) {               // a temporary would dangle (C++20)
      if (job.at("job_id") == id && job.at("partitions").at(0).at("state") == "gpu") return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(DaemonGpuStatus, OnTheGpuTheGpuFieldsNameTheJobAndItsGpu) {
  // Early proving off: a load from key images then never defers a proof, so
  // deferred_proofs below is exactly 0.
  DaemonProcess d("[gpus]\nearly_proving = false\n[testing]\ngpu_delay = \"5s\"\n");
  auto stub = d.Stub();
  if (Status(*stub).gpus_size() == 0) GTEST_SKIP() << "the daemon sees no GPU (CpuBackendNamesNoGpu covers this host)";
  const v1::SubmitProofRequest req = FixtureSnapRequest("gpu-status-1");
  v1::SubmitProofResponse first;
  ASSERT_TRUE(Submit(*stub, req, &first).ok());
  const std::string id = first.job_id();
  EXPECT_EQ(first.assigned_gpu(), "") << "a new job's partitions have not reached a GPU yet";

  // While the partition is held on a GPU (5 s): exactly one GPU names it.
  std::string ordinal;
  v1::GetStatusResponse st;
  for (const auto end = Clock::now() + seconds(120); ordinal.empty() && Clock::now() < end;) {
    st = Status(*stub);
    for (const auto& g : st.gpus()) {
      if (g.current_job_id().empty()) continue;
      EXPECT_EQ(g.current_job_id(), id);
      EXPECT_EQ(g.current_proof_kind(), "SNAP_DEALS_UPDATE");  // the proto's enum name (Curio's daemon: "snap-update")
      EXPECT_TRUE(ordinal.empty()) << "a 1-partition job on two GPUs: " << st.DebugString();
      ordinal = std::to_string(g.ordinal());
    }
    if (ordinal.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(ordinal.empty()) << st.DebugString() << d.Log();
  EXPECT_EQ(Retry(*stub, req, id).assigned_gpu(), ordinal) << "joining the running job";

  const v1::AwaitProofResponse done = Await(*stub, id);
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message();
  EXPECT_TRUE(VerifyFixtureProof(done.proof()));
  // Named, not `for (g : Status(*stub).gpus())`: that loop reads a destroyed
  // temporary (a range-for keeps only the range's own temporary alive; gcc
  // warns -Wdangling-pointer). This test's first version did that, after the
  // GPU skip, and segfaulted on the H200 host.
  const v1::GetStatusResponse after = Status(*stub);
  for (const auto& g : after.gpus()) {
    EXPECT_EQ(g.current_job_id(), "") << g.DebugString();
    EXPECT_EQ(g.current_proof_kind(), "") << g.DebugString();
  }
  EXPECT_EQ(Retry(*stub, req, id).assigned_gpu(), ordinal) << "joining the completed job";
  // GET /status says what the daemon holds on each GPU: the set's bases stay
  // after its proof; nothing streams and nothing waited (early_proving off).
  const nlohmann::json js = GetStatusJson(d.status_port());
  uint64_t bases = 0;
  for (const auto& g : js.at("gpus")) {
    bases += g.at("bases_resident_bytes").get<uint64_t>();
    EXPECT_LE(g.at("shifted_h_bytes").get<uint64_t>(), g.at("bases_resident_bytes").get<uint64_t>()) << g.dump();
    EXPECT_EQ(g.at("keys_landing").get<uint32_t>(), 0u) << g.dump();
    EXPECT_EQ(g.at("deferred_proofs").get<uint64_t>(), 0u) << g.dump();
    EXPECT_TRUE(g.contains("circuits_resident_bytes")) << g.dump();
  }
  EXPECT_GT(bases, 0u) << "the proved set's bases are resident on a GPU: " << js.at("gpus").dump();
}

TEST(DaemonGpuStatus, CpuBackendNamesNoGpu) {
  DaemonProcess d("[testing]\ngpu_delay = \"2s\"\n");
  auto stub = d.Stub();
  if (Status(*stub).gpus_size() > 0) GTEST_SKIP() << "the daemon proves on a GPU (OnTheGpu... covers this host)";
  EXPECT_EQ(GetStatusJson(d.status_port()).at("gpus").size(), 0u);
  const v1::SubmitProofRequest req = FixtureSnapRequest("cpu-status-1");
  v1::SubmitProofResponse first;
  ASSERT_TRUE(Submit(*stub, req, &first).ok());
  const std::string id = first.job_id();
  EXPECT_EQ(first.assigned_gpu(), "");

  // The partition is in the GPU stage, on a CPU-backend worker: no GPU is named.
  ASSERT_TRUE(WaitForGpuStage(d, id)) << d.Log();
  EXPECT_EQ(Status(*stub).gpus_size(), 0);
  EXPECT_EQ(Retry(*stub, req, id).assigned_gpu(), "") << "joining the running job";

  const v1::AwaitProofResponse done = Await(*stub, id);
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message();
  EXPECT_TRUE(VerifyFixtureProof(done.proof()));
  // The GPU stage lasted at least the delay: the knob held it there.
  EXPECT_GE(done.gpu_compute_ms(), 2000u);
  EXPECT_EQ(Retry(*stub, req, id).assigned_gpu(), "") << "joining the completed job";
}

}  // namespace
}  // namespace cuzk::test
