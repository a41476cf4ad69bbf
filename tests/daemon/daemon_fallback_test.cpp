// The fallback engine (issue 18), with real daemon processes: daemon A does
// not prove SnapDeals ([fallback] kinds = ["SNAP_DEALS_UPDATE"]) and forwards
// it to daemon B, an ordinary cuzk daemon.
// - a large forwarded request answered at once with the fallback's own
//   answer; SubmitProof, GetStatus/GetMetrics (B's queue seen through A), CancelProof
//   and AwaitProof by A's "fallback-" id, and a Prove whose proof (made by B)
//   verifies;
// - B stopped: A answers UNAVAILABLE naming the fallback and stays up;
// - a fallback that is down leaves A's own kinds working; without a fallback
//   other kinds are UNIMPLEMENTED naming the config key.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using std::chrono::seconds;

std::string FallbackToml(const std::string& address, const std::string& kinds) {
  return "[fallback]\naddress = \"" + address + "\"\n" + (kinds.empty() ? "" : "kinds = [" + kinds + "]\n");
}

// pending + in_progress of a kind's queue: what Curio's HasCapacity sums.
uint32_t Load(const v1::GetStatusResponse& st, const std::string& kind) {
  uint32_t n = 0;
  for (const auto& q : st.queues())
    if (q.proof_kind() == kind) n += q.pending() + q.in_progress();
  return n;
}

v1::SubmitProofRequest WindowPostRequest() {
  v1::SubmitProofRequest r;
  r.set_request_id("wdpost-1000-0-[12 34]");
  r.set_proof_kind(v1::WINDOW_POST_PARTITION);
  r.set_registered_proof(13);
  r.set_miner_id(1000);
  r.set_randomness(std::string(32, '\x01'));
  r.add_vanilla_proofs(std::string(200, 'v'));
  return r;
}

TEST(DaemonFallback, SnapDealsForwardedToAnotherDaemonCompletesWithItsVerifiedProof) {
  DaemonProcess b("");
  DaemonProcess a(FallbackToml("unix://" + b.socket_path(), "\"SNAP_DEALS_UPDATE\", \"WINDOW_POST_PARTITION\""));
  auto stub = a.Stub();

  // A large request goes through promptly, and the fallback's own answer
  // (B proves no WindowPoSt: UNIMPLEMENTED) comes back unchanged.
  v1::SubmitProofRequest large = WindowPostRequest();
  large.add_vanilla_proofs(std::string(8 << 20, 'w'));
  const auto start = std::chrono::steady_clock::now();
  v1::SubmitProofResponse refused;
  grpc::Status s = Submit(*stub, large, &refused);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED) << s.error_message();
  // (In a process with no gRPC server polling, the callback client took 10 s
  // for a 4 MB call: two 5 s backup polls. A's server threads poll for it.)
  // Scaled: a sanitizer build copies and parses the 8 MiB several times over
  // at a fraction of the speed. At scale 1 the bound still catches the 10 s
  // stall; a slower build catches only a stall longer than its bound.
  EXPECT_LT(std::chrono::steady_clock::now() - start, Scaled(seconds(8)));

  // SubmitProof through A: B holds the job, A names it "fallback-" + B's id.
  v1::SubmitProofResponse submitted;
  s = Submit(*stub, FixtureSnapRequest("fwd-cancel"), &submitted);
  ASSERT_TRUE(s.ok()) << s.error_message() << "\n" << a.Log();
  EXPECT_EQ(submitted.job_id(), "fallback-fwd-cancel");
  v1::GetStatusResponse st_a, st_b;
  ASSERT_TRUE(stub->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st_a).ok());
  ASSERT_TRUE(b.Stub()->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st_b).ok());
  EXPECT_EQ(Load(st_b, "SNAP_DEALS_UPDATE"), 1u);
  EXPECT_EQ(Load(st_a, "SNAP_DEALS_UPDATE"), Load(st_b, "SNAP_DEALS_UPDATE")) << st_a.DebugString();
  v1::GetMetricsResponse metrics;
  ASSERT_TRUE(stub->GetMetrics(Ctx().get(), v1::GetMetricsRequest(), &metrics).ok());
  EXPECT_NE(metrics.prometheus_text().find("cuzk_fallback_up 1"), std::string::npos);
  EXPECT_NE(metrics.prometheus_text().find("cuzk_fallback_queue_pending{proof_kind=\"SNAP_DEALS_UPDATE\"}"),
            std::string::npos);

  // CancelProof and AwaitProof by A's id reach B's job.
  v1::CancelProofRequest cancel;
  cancel.set_job_id(submitted.job_id());
  v1::CancelProofResponse cancelled;
  s = stub->CancelProof(Ctx().get(), cancel, &cancelled);
  EXPECT_TRUE(s.ok()) << s.error_message();
  // Cancelled at its worker's next stage boundary: after the parameter load.
  v1::AwaitProofResponse awaited = Await(*stub, submitted.job_id(), 0, nullptr, Scaled(seconds(120)));
  EXPECT_EQ(awaited.status(), v1::AwaitProofResponse::CANCELLED) << awaited.error_message();
  EXPECT_EQ(awaited.job_id(), "fallback-fwd-cancel");

  // Prove through A: B proves it, and the proof verifies.
  v1::ProveRequest prove;
  *prove.mutable_submit() = FixtureSnapRequest("fwd-prove");
  v1::ProveResponse proved;
  s = stub->Prove(Ctx(Scaled(seconds(600))).get(), prove, &proved);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(proved.result().status(), v1::AwaitProofResponse::COMPLETED) << proved.result().error_message();
  EXPECT_EQ(proved.result().job_id(), "fallback-fwd-prove");
  EXPECT_TRUE(VerifyFixtureProof(proved.result().proof()));
  // B proved it; A proved nothing (its own counter: GetStatus adds only the fallback's queues).
  ASSERT_TRUE(b.Stub()->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st_b).ok());
  ASSERT_TRUE(stub->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st_a).ok());
  EXPECT_EQ(st_b.total_proofs_completed(), 1u);
  EXPECT_EQ(st_a.total_proofs_completed(), 0u);

  // B stops: A answers UNAVAILABLE naming the fallback, and keeps serving.
  EXPECT_EQ(b.Signal(SIGTERM), 0);
  s = Submit(*stub, FixtureSnapRequest("fwd-down"), &submitted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  EXPECT_NE(s.error_message().find("fallback engine at unix://" + b.socket_path()), std::string::npos)
      << s.error_message();
  s = stub->Prove(Ctx().get(), prove, &proved);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  grpc::Status await_status;
  Await(*stub, "fallback-fwd-prove", 0, &await_status, seconds(30));
  EXPECT_EQ(await_status.error_code(), grpc::StatusCode::UNAVAILABLE) << await_status.error_message();
  ASSERT_TRUE(stub->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st_a).ok());
  ASSERT_TRUE(stub->GetMetrics(Ctx().get(), v1::GetMetricsRequest(), &metrics).ok());
  EXPECT_NE(metrics.prometheus_text().find("cuzk_fallback_up 0"), std::string::npos);
  EXPECT_EQ(a.State(), "running");
}

TEST(DaemonFallback, AFallbackThatIsDownLeavesOurOwnKindsWorking) {
  // The default kinds: PoRep and both PoSts forwarded, SnapDeals proved here.
  DaemonProcess a(FallbackToml("unix:///nonexistent/cuzk-fallback.sock", ""));
  auto stub = a.Stub();
  v1::ProveRequest prove;
  *prove.mutable_submit() = WindowPostRequest();
  v1::ProveResponse proved;
  grpc::Status s = stub->Prove(Ctx().get(), prove, &proved);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  EXPECT_NE(s.error_message().find("unix:///nonexistent/cuzk-fallback.sock ([fallback] address)"), std::string::npos)
      << s.error_message();
  EXPECT_NE(s.error_message().find("WINDOW_POST_PARTITION"), std::string::npos) << s.error_message();
  v1::SubmitProofResponse submitted;
  s = Submit(*stub, FixtureSnapRequest("local-snap"), &submitted);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(submitted.job_id(), "local-snap");
  v1::GetStatusResponse st;
  ASSERT_TRUE(stub->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st).ok());
  EXPECT_EQ(Load(st, "SNAP_DEALS_UPDATE"), 1u);
  v1::CancelProofRequest cancel;
  cancel.set_job_id("local-snap");
  v1::CancelProofResponse cancelled;
  EXPECT_TRUE(stub->CancelProof(Ctx().get(), cancel, &cancelled).ok());
  EXPECT_EQ(a.State(), "running");
}

TEST(DaemonFallback, WithoutAFallbackOtherKindsAreUnimplementedNamingTheConfigKey) {
  DaemonProcess a("");
  auto stub = a.Stub();
  v1::SubmitProofResponse submitted;
  grpc::Status s = Submit(*stub, WindowPostRequest(), &submitted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED) << s.error_message();
  EXPECT_NE(s.error_message().find("[fallback] address"), std::string::npos) << s.error_message();
  // The prefix of forwarded ids is not a local request_id.
  s = Submit(*stub, FixtureSnapRequest("fallback-mine"), &submitted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("fallback-"), std::string::npos) << s.error_message();
  EXPECT_EQ(a.State(), "running");
}

}  // namespace
}  // namespace cuzk::test
