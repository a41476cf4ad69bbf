// Limits a hostile or careless client (or operator) must not get past, each
// against the real cuzk-daemon: a second daemon on a TCP port already served
// fails to start (gRPC's default SO_REUSEPORT would let it share the port),
// and an AwaitProof timeout_ms too large for a deadline is refused instead of
// timing out at once, and ids that are too long or carry control characters
// (a newline would forge log lines) are refused with a short message.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <limits>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using std::chrono::seconds;

TEST(DaemonLimits, ASecondDaemonOnTheSameTcpPortFailsToStart) {
  // The first daemon takes a port from the kernel (port 0) and names it on its
  // READY line: a port found free beforehand could be taken by anyone before
  // the daemon binds it.
  auto config = [](const std::string& listen) {
    return "[daemon]\nlisten = \"" + listen + "\"\nstatus_listen = \"\"\n[srs]\nparam_cache = \"" + ParamCache() +
           "\"\n";
  };
  DaemonProcess first(config("127.0.0.1:0"), /*with_defaults=*/false);
  const std::string listen = first.grpc_target();
  ASSERT_EQ(listen.rfind("127.0.0.1:", 0), 0u) << "READY named no TCP address: \"" << listen << "\"";
  ASSERT_NE(listen, "127.0.0.1:0");
  const std::string toml = config(listen);
  const auto [code, log] = RunDaemonExpectingExit(toml, seconds(60));
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("cannot listen on " + listen), std::string::npos) << log;
  // The first one still serves.
  auto stub = v1::ProvingEngine::NewStub(grpc::CreateChannel(listen, grpc::InsecureChannelCredentials()));
  v1::GetStatusResponse st;
  EXPECT_TRUE(stub->GetStatus(Ctx(seconds(10)).get(), v1::GetStatusRequest(), &st).ok());
}

TEST(DaemonLimits, AwaitTimeoutsTooLargeForADeadlineAreRefused) {
  // The job must outlast the awaits below on any machine (a GPU proves 2 KiB in well under a second).
  DaemonProcess d("[testing]\nsynthesis_delay = \"20s\"\n");
  auto stub = d.Stub();
  v1::SubmitProofRequest req = FixtureSnapRequest("limits");
  const std::string id = MustSubmit(*stub, req);
  for (uint64_t timeout_ms : {uint64_t(9.2e12), std::numeric_limits<uint64_t>::max()}) {
    grpc::Status status;
    Await(*stub, id, timeout_ms, &status, seconds(30));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << timeout_ms << ": " << status.error_message();
    EXPECT_NE(status.error_message().find("timeout_ms"), std::string::npos) << status.error_message();
  }
  // A long but valid one still waits: the job is not over a second later.
  grpc::Status status;
  const v1::AwaitProofResponse r = Await(*stub, id, 1000, &status, seconds(30));
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(r.status(), v1::AwaitProofResponse::TIMEOUT);
  v1::CancelProofRequest cancel;
  cancel.set_job_id(id);
  v1::CancelProofResponse cancelled;
  EXPECT_TRUE(stub->CancelProof(Ctx().get(), cancel, &cancelled).ok());
  EXPECT_EQ(d.Signal(SIGTERM), 0);
}

TEST(DaemonLimits, IdsAreBoundedAndPrintableAndErrorsQuoteThemShortly) {
  DaemonProcess d("");
  auto stub = d.Stub();
  auto expect_invalid = [&](const std::string& request_id, const std::string& why) {
    v1::SubmitProofResponse resp;
    const grpc::Status s = Submit(*stub, FixtureSnapRequest(request_id), &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << why;
    EXPECT_NE(s.error_message().find("request_id"), std::string::npos) << s.error_message();
    EXPECT_LT(s.error_message().size(), 400u) << why;  // the id is not echoed whole
    EXPECT_EQ(s.error_message().find('\n'), std::string::npos) << why;
  };
  expect_invalid(std::string(64 << 10, 'x'), "64 KiB id");
  expect_invalid(std::string(257, 'y'), "257 bytes");
  expect_invalid("snap-1-2\nTIMELINE,0,GPU_START,forged,partition=0", "newline");
  expect_invalid(std::string("tab\tid"), "tab");
  expect_invalid(std::string("nul\0id", 6), "NUL");
  // Curio's own ids: spaces and brackets are fine, and 256 bytes is the limit.
  for (const std::string& ok : {std::string("wdpost-1000-0-[12 34 56 78 9a bc de f0]"), std::string(256, 'z')}) {
    v1::SubmitProofResponse resp;
    const grpc::Status s = Submit(*stub, FixtureSnapRequest(ok), &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(resp.job_id(), ok);
    v1::CancelProofRequest cancel;
    cancel.set_job_id(ok);
    v1::CancelProofResponse cancelled;
    EXPECT_TRUE(stub->CancelProof(Ctx().get(), cancel, &cancelled).ok());
  }
  // AwaitProof and CancelProof check job ids the same way.
  grpc::Status status;
  Await(*stub, std::string(1 << 20, 'q'), 10, &status, seconds(30));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(status.error_message().size(), 400u);
  v1::CancelProofRequest cancel;
  cancel.set_job_id("bad\nid");
  v1::CancelProofResponse cancelled;
  EXPECT_EQ(stub->CancelProof(Ctx().get(), cancel, &cancelled).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Logged escaped (\x0a), so no line of the log starts with the forged TIMELINE.
  EXPECT_EQ(d.Log().find("\nTIMELINE,0,GPU_START,forged"), std::string::npos) << d.Log();
  EXPECT_EQ(d.Signal(SIGTERM), 0);
}

}  // namespace
}  // namespace cuzk::test
