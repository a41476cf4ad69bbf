// registered_proof and sector_size as Curio sends them (issue 18), through a
// real daemon. Curio's proof-share task (PSProve, tasks/proofshare computeSnap)
// sends a SnapDeals Prove without sector_size: registered_proof (Filecoin's
// RegisteredUpdateProof) alone gives the sector size, as in Curio's own daemon,
// which reads only registered_proof. Values that are no RegisteredUpdateProof,
// and a registered_proof that contradicts a sector_size, are refused at once
// (Curio's daemon would accept and fail the job): docs/deploy.md, "Pointing a
// Curio node at cuzk".
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;

// Exactly the fields PSProve's computeSnap sets (its request_id is
// ps-snap-<miner>-<sector>-<task>; commitments are the raw 32 bytes).
v1::SubmitProofRequest ProofShareSnapRequest() {
  v1::SubmitProofRequest r = FixtureSnapRequest("ps-snap-1000-7-42");
  r.clear_sector_size();
  r.set_registered_proof(0);  // abi.RegisteredUpdateProof_StackedDrg2KiBV1
  r.set_priority(v1::NORMAL);
  r.set_sector_number(7);
  r.set_miner_id(1000);
  return r;
}

void ExpectRefused(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& r,
                   std::initializer_list<std::string> words) {
  v1::SubmitProofResponse resp;
  const grpc::Status s = Submit(stub, r, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  for (const std::string& w : words) EXPECT_NE(s.error_message().find(w), std::string::npos) << s.error_message();
}

TEST(DaemonCurioFields, ProofShareSnapRequestWithoutSectorSizeIsProved) {
  DaemonProcess d("");
  auto stub = d.Stub();
  const v1::SubmitProofRequest ps = ProofShareSnapRequest();
  {  // Not a RegisteredUpdateProof.
    v1::SubmitProofRequest r = ps;
    r.set_registered_proof(5);
    ExpectRefused(*stub, r, {"registered_proof 5", "RegisteredUpdateProof"});
  }
  {  // registered_proof decides the shape: 1 is 8 MiB, whose partitions the 2 KiB proofs are not.
    v1::SubmitProofRequest r = ps;
    r.set_registered_proof(1);
    ExpectRefused(*stub, r, {"vanilla_proofs", "8MiB"});
  }
  {  // Both given, and they disagree.
    v1::SubmitProofRequest r = ps;
    r.set_registered_proof(3);
    r.set_sector_size(2048);
    ExpectRefused(*stub, r, {"registered_proof 3", "StackedDrg32GiBV1", "sector_size 2048"});
  }
  // None of those became a job.
  v1::GetStatusResponse st;
  ASSERT_TRUE(stub->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st).ok());
  for (const auto& q : st.queues()) EXPECT_EQ(q.pending() + q.in_progress(), 0u) << q.DebugString();

  // As PSProve sends it: proved, and the proof verifies.
  v1::ProveRequest prove;
  *prove.mutable_submit() = ps;
  v1::ProveResponse proved;
  const grpc::Status s = stub->Prove(Ctx(Scaled(std::chrono::seconds(600))).get(), prove, &proved);
  ASSERT_TRUE(s.ok()) << s.error_message() << d.Log();
  EXPECT_EQ(proved.result().status(), v1::AwaitProofResponse::COMPLETED) << proved.result().error_message();
  EXPECT_EQ(proved.result().job_id(), "ps-snap-1000-7-42");
  EXPECT_TRUE(VerifyFixtureProof(proved.result().proof()));
}

}  // namespace
}  // namespace cuzk::test
