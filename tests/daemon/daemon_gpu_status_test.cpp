// GetStatus's GPU fields through a real daemon on a GPU host (issue 18):
// while a partition is on a GPU, that GPU's GPUStatus names the job
// (current_job_id) and its kind (current_proof_kind), as Curio's status
// view expects, and both are empty again once the job is done. The GPU
// stage is held for a known time with [testing] gpu_delay (a 2 KiB proof's
// own GPU time is milliseconds). Skipped where the daemon sees no GPU (the
// CPU backend has no GPUStatus entries).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

v1::GetStatusResponse Status(v1::ProvingEngine::Stub& stub) {
  v1::GetStatusResponse resp;
  EXPECT_TRUE(stub.GetStatus(Ctx(seconds(5)).get(), v1::GetStatusRequest(), &resp).ok());
  return resp;
}

TEST(DaemonGpuStatus, CurrentJobFieldsNameTheJobOnTheGpu) {
  DaemonProcess d("[testing]\ngpu_delay = \"5s\"\n");
  auto stub = d.Stub();
  if (Status(*stub).gpus_size() == 0) GTEST_SKIP() << "the daemon sees no GPU";
  const std::string id = MustSubmit(*stub, FixtureSnapRequest("gpu-status-1"));
  // Seen while the partition is held on the GPU stage (5 s).
  bool seen = false;
  v1::GetStatusResponse st;
  for (const auto end = Clock::now() + seconds(120); !seen && Clock::now() < end;) {
    st = Status(*stub);
    for (const auto& g : st.gpus()) {
      if (g.current_job_id().empty()) continue;
      EXPECT_EQ(g.current_job_id(), id);
      EXPECT_EQ(g.current_proof_kind(), "SNAP_DEALS_UPDATE");  // a string in the proto, as in Curio's
      seen = true;
    }
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(seen) << st.DebugString() << d.Log();
  const v1::AwaitProofResponse done = Await(*stub, id);
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message();
  EXPECT_TRUE(VerifyFixtureProof(done.proof()));
  // Bound to a name first: a range-for over Status(*stub).gpus() would walk
  // a member of a temporary destroyed before the loop body (the segfault this
  // test had on the H200).
  const v1::GetStatusResponse after = Status(*stub);
  for (const auto& g : after.gpus()) EXPECT_TRUE(g.current_job_id().empty()) << g.DebugString();
}

}  // namespace
}  // namespace cuzk::test
