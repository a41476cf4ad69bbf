// Requests at the wire, against the real cuzk-daemon (issue 19, findings 2,
// 7, 8 and the hung-up Prove):
// - bytes that are not a message get INVALID_ARGUMENT naming the message
//   type, on every method (gRPC's own parser answered INTERNAL, no message);
// - millions of empty vanilla_proofs are refused by the limit's name, and the
//   daemon's peak RSS grows by less than 3x the message (17-21x before);
// - a SnapDeals request with a field SnapDeals does not use (randomness) is
//   refused naming it, while the fields Curio sends pass;
// - a Prove whose client hangs up cancels its job, unless an AwaitProof
//   still holds it (then the job goes on).
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
// One empty vanilla_proofs element: tag 11, length 0.
const std::string kEmptyElement("\x5a\x00", 2);
using std::chrono::seconds;

// A unary call with raw request bytes, as a client written from the wire
// alone would make it. (Blocking: the callback GenericStub took 10 s to
// report a large call's answer here, whatever the server did.)
grpc::Status RawCall(const DaemonProcess& d, const std::string& method, const std::string& bytes) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(512 << 20);
  auto channel = grpc::CreateCustomChannel("unix:" + d.socket_path(), grpc::InsecureChannelCredentials(), args);
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  auto ctx = Ctx(seconds(120));
  const std::string name = "/cuzk.v1.ProvingEngine/" + method;
  return grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      channel.get(), grpc::internal::RpcMethod(name.c_str(), grpc::internal::RpcMethod::NORMAL_RPC), ctx.get(), request,
      &response);
}

std::string Varint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out += char(0x80 | (v & 0x7f));
  return out + char(v);
}

// kB of a /proc/<pid>/status line ("VmHWM:", "VmRSS:").
uint64_t ProcStatusKb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size()));
  return 0;
}

TEST(DaemonRequests, BytesThatAreNoMessageGetInvalidArgumentNamingTheType) {
  DaemonProcess d("");
  const std::string garbage("\xff\xff\xff\xff\x0f", 5);
  for (const char* method :
       {"SubmitProof", "AwaitProof", "Prove", "CancelProof", "GetStatus", "GetMetrics", "PreloadSRS", "EvictSRS"}) {
    const grpc::Status s = RawCall(d, method, garbage);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << method << ": " << s.error_message();
    EXPECT_NE(s.error_message().find("not a valid"), std::string::npos) << method << ": " << s.error_message();
  }
  // A field that declares more bytes than follow: the parse names the type.
  const grpc::Status s = RawCall(d, "CancelProof",
                                 "\x0a\x05"
                                 "ab");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("cuzk.v1.CancelProofRequest"), std::string::npos) << s.error_message();
  // AwaitProof and CancelProof are parsed where they arrive: their size is bounded first.
  const std::string large_id_request =
      "\x0a\x05"
      "job-1"
      "\xa2\x06" +
      Varint(100000) + std::string(100000, 'u');
  for (const char* method : {"AwaitProof", "CancelProof"}) {
    const grpc::Status big = RawCall(d, method, large_id_request);
    EXPECT_EQ(big.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << method << ": " << big.error_message();
    EXPECT_NE(big.error_message().find("at most 65536"), std::string::npos) << big.error_message();
  }
  v1::GetStatusResponse st;
  EXPECT_TRUE(d.Stub()->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st).ok()) << d.State();
  EXPECT_EQ(d.State(), "running");
}

TEST(DaemonRequests, AmplificationIsRefusedByNameAndRssGrowthStaysBounded) {
  DaemonProcess d("");
  // 20 million empty vanilla_proofs elements (2 bytes each): 40 MB on the
  // wire, which parsed would cost ~0.7 GB.
  constexpr size_t kElements = 20'000'000;
  std::string bytes = "\x10\x02";  // proof_kind = SNAP_DEALS_UPDATE
  bytes.reserve(2 + 2 * kElements);
  for (size_t i = 0; i < kElements; ++i) bytes += kEmptyElement;
  const uint64_t hwm_before = ProcStatusKb(d.pid(), "VmHWM:");
  grpc::Status s = RawCall(d, "SubmitProof", bytes);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("requests.max_vanilla_proofs"), std::string::npos) << s.error_message();
  s = RawCall(d, "Prove", "\x0a" + Varint(bytes.size()) + bytes);  // ProveRequest.submit = the same bytes
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("requests.max_vanilla_proofs"), std::string::npos) << s.error_message();
  // Without a proof kind the kind-free ceiling (65536 elements) stops the scan.
  s = RawCall(d, "SubmitProof", bytes.substr(2));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("more than 65536 vanilla_proofs"), std::string::npos) << s.error_message();
  const uint64_t hwm_after = ProcStatusKb(d.pid(), "VmHWM:");
  const uint64_t growth = (hwm_after - hwm_before) * 1024;
  std::printf("message %zu bytes; daemon VmHWM %llu kB -> %llu kB (growth %.2fx the message)\n", bytes.size(),
              (unsigned long long)hwm_before, (unsigned long long)hwm_after, double(growth) / double(bytes.size()));
  EXPECT_LT(growth, 3 * bytes.size());
  v1::GetStatusResponse st;
  EXPECT_TRUE(d.Stub()->GetStatus(Ctx().get(), v1::GetStatusRequest(), &st).ok()) << d.State();
  EXPECT_EQ(d.State(), "running");
}

TEST(DaemonRequests, FieldsSnapDealsDoesNotUseAreRefusedAndCuriosFieldsPass) {
  DaemonProcess d("");
  auto stub = d.Stub();
  v1::SubmitProofRequest bad = FixtureSnapRequest("unused-field");
  bad.set_randomness(std::string(4 << 20, 'r'));
  v1::SubmitProofResponse resp;
  grpc::Status s = Submit(*stub, bad, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("randomness"), std::string::npos) << s.error_message();
  v1::ProveRequest prove;
  *prove.mutable_submit() = bad;
  v1::ProveResponse proved;
  s = stub->Prove(Ctx().get(), prove, &proved);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("randomness"), std::string::npos) << s.error_message();
  // Every field Curio's ProveUpdateCuzk sets.
  v1::SubmitProofRequest curio = FixtureSnapRequest("snap-1000-7");
  curio.set_registered_proof(0);  // StackedDrg2KiBV1
  curio.set_priority(v1::NORMAL);
  curio.set_sector_number(7);
  curio.set_miner_id(1000);
  s = Submit(*stub, curio, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  v1::CancelProofRequest cancel;
  cancel.set_job_id(resp.job_id());
  v1::CancelProofResponse cancelled;
  EXPECT_TRUE(stub->CancelProof(Ctx().get(), cancel, &cancelled).ok());
  EXPECT_EQ(d.State(), "running");
}

// Starts a Prove on its own context; Await(id, 200 ms) then says the job exists.
struct PendingProve {
  grpc::ClientContext ctx;
  v1::ProveRequest req;
  v1::ProveResponse resp;
  std::promise<grpc::Status> done;

  PendingProve(v1::ProvingEngine::Stub& stub, const std::string& request_id) {
    *req.mutable_submit() = FixtureSnapRequest(request_id);
    stub.async()->Prove(&ctx, &req, &resp, [this](grpc::Status s) { done.set_value(std::move(s)); });
  }
};

void WaitUntilKnown(v1::ProvingEngine::Stub& stub, const std::string& id) {
  for (int i = 0; i < 300; ++i) {
    grpc::Status s;
    Await(stub, id, 100, &s, seconds(30));
    if (s.ok()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << "job " << id << " never appeared";
}

TEST(DaemonRequests, AProveWhoseClientHangsUpCancelsItsJob) {
  // The job must still run at the hang-up on any machine (a GPU proves 2 KiB
  // in well under a second); the delay ends on the cancel.
  DaemonProcess d("[testing]\nsynthesis_delay = \"60s\"\n");
  auto stub = d.Stub();
  PendingProve p(*stub, "prove-hangup");
  WaitUntilKnown(*stub, "prove-hangup");
  p.ctx.TryCancel();
  EXPECT_EQ(p.done.get_future().get().error_code(), grpc::StatusCode::CANCELLED);
  // An AwaitProof sent now could reach the daemon before the hang-up does
  // and hold the job; the tracker's counter says when the cancel happened.
  for (int i = 0; i < 600 && GetStatusJson(d.status_port())["counters"]["cancelled"].get<uint64_t>() < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const v1::AwaitProofResponse r = Await(*stub, "prove-hangup", 0, nullptr, seconds(60));
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::CANCELLED) << r.error_message();
  EXPECT_NE(d.Log().find("its Prove client went away and no other call holds it: cancelled"), std::string::npos)
      << d.Log();
  EXPECT_EQ(d.State(), "running");
}

TEST(DaemonRequests, AProveHungUpWhileAnAwaitHoldsTheJobLeavesItRunning) {
  // The job must still run through the hang-up and the counts on any machine
  // (a GPU proves 2 KiB in well under a second); the delay ends on the cancel.
  DaemonProcess d("[testing]\nsynthesis_delay = \"60s\"\n");
  auto stub = d.Stub();
  PendingProve p(*stub, "prove-held");
  WaitUntilKnown(*stub, "prove-held");
  auto counter = [&](const char* name) { return GetStatusJson(d.status_port())["counters"][name].get<uint64_t>(); };
  // An AwaitProof holds the job too (the Prove's waiter and this one: 2).
  auto awaited = std::async(std::launch::async, [&] { return Await(*stub, "prove-held", 0, nullptr, seconds(300)); });
  for (int i = 0; i < 600 && counter("awaiting") < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(counter("awaiting"), 2u);
  p.ctx.TryCancel();
  EXPECT_EQ(p.done.get_future().get().error_code(), grpc::StatusCode::CANCELLED);
  // The daemon withdrew the Prove's waiter, and did not cancel the job.
  for (int i = 0; i < 600 && counter("awaiting") > 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(counter("awaiting"), 1u);
  EXPECT_EQ(counter("cancelled"), 0u);
  EXPECT_EQ(d.Log().find("its Prove client went away and no other call holds it"), std::string::npos);
  // Ended here by the test (a whole proof would add half a minute): the AwaitProof sees it.
  v1::CancelProofRequest cancel;
  cancel.set_job_id("prove-held");
  v1::CancelProofResponse cancelled;
  EXPECT_TRUE(stub->CancelProof(Ctx().get(), cancel, &cancelled).ok());
  EXPECT_EQ(awaited.get().status(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_EQ(d.State(), "running");
}

}  // namespace
}  // namespace cuzk::test
