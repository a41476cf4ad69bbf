// Waiting holds no thread: the real cuzk-daemon with a pool of 4 threads for
// its synchronous RPCs answers 1000 concurrent AwaitProof callers of one
// 2 KiB job (all COMPLETED with the same verified proof), 200 more whose
// server-side timeout passes first (TIMEOUT, on time), and 100 that hang up
// (withdrawn at once, as /status counts), while GetStatus stays prompt.
// With one thread per waiter (the synchronous API) the 5th waiter would
// already find no thread.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// One asynchronous AwaitProof on the client's completion queue.
struct Call {
  grpc::ClientContext ctx;
  v1::AwaitProofResponse resp;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::AwaitProofResponse>> reader;
  Clock::time_point started, answered;
  bool done = false;
};

uint64_t Awaiting(DaemonProcess& d) { return GetStatusJson(d.status_port()).at("counters").at("awaiting"); }

bool WaitFor(const std::function<bool()>& condition, seconds timeout) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return condition();
}

TEST(DaemonWaiters, ThousandConcurrentAwaitCallersOnASmallThreadPoolAreAllAnswered) {
  // rpc_threads is appended to the [daemon] table; the synthesis delay keeps
  // the job running while the callers register, on any machine (a GPU host
  // proves 2 KiB in well under a second).
  DaemonProcess d("rpc_threads = 4\n[testing]\nsynthesis_delay = \"15s\"\n");
  auto stub = d.Stub();
  const std::string id = MustSubmit(*stub, FixtureSnapRequest("waiters"));
  ASSERT_FALSE(id.empty());

  constexpr int kWaiters = 1000, kTimeouts = 200, kHangUps = 100;
  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<Call>> calls;
  // The completion queue hands each Call to the collector inside gRPC, which
  // TSan does not see (gRPC is not instrumented): without this lock, held while
  // a call is made and started and while the collector writes to it, TSan
  // reported the collector's writes racing with the Call's allocation.
  std::mutex handoff;
  auto start = [&](uint64_t timeout_ms) {
    std::lock_guard lock(handoff);
    auto c = std::make_unique<Call>();
    c->ctx.set_deadline(std::chrono::system_clock::now() + Scaled(seconds(600)));
    v1::AwaitProofRequest req;
    req.set_job_id(id);
    req.set_timeout_ms(timeout_ms);
    c->started = Clock::now();
    c->reader = stub->AsyncAwaitProof(&c->ctx, req, &cq);
    c->reader->Finish(&c->resp, &c->status, c.get());
    calls.push_back(std::move(c));
  };
  std::thread collector([&] {
    void* tag;
    bool ok;
    while (cq.Next(&tag, &ok)) {
      auto* c = static_cast<Call*>(tag);
      std::lock_guard lock(handoff);
      c->answered = Clock::now();
      c->done = true;
    }
  });
  // A failed ASSERT returns early: the queue is shut down and the collector
  // joined on every way out (a joinable std::thread would terminate the test).
  struct JoinOnExit {
    grpc::CompletionQueue& cq;
    std::thread& t;
    std::vector<std::unique_ptr<Call>>& calls;
    ~JoinOnExit() {
      if (!t.joinable()) return;
      for (auto& c : calls) c->ctx.TryCancel();  // so every call completes now
      cq.Shutdown();
      t.join();
    }
  } join_on_exit{cq, collector, calls};
  for (int i = 0; i < kWaiters; ++i) start(0);  // until the job ends
  for (int i = 0; i < kHangUps; ++i) start(0);  // cancelled by the client below

  // Every waiter is registered in the daemon, and a synchronous RPC still gets a thread at once.
  ASSERT_TRUE(WaitFor([&] { return Awaiting(d) == kWaiters + kHangUps; }, seconds(60))) << "awaiting " << Awaiting(d);
  const auto t0 = Clock::now();
  v1::GetStatusResponse st;
  ASSERT_TRUE(stub->GetStatus(Ctx(seconds(10)).get(), v1::GetStatusRequest(), &st).ok());
  EXPECT_LT(Clock::now() - t0, seconds(5));

  for (int i = 0; i < kTimeouts; ++i) start(1500);  // the server answers TIMEOUT after 1.5 s
  for (int i = 0; i < kHangUps; ++i) calls[kWaiters + i]->ctx.TryCancel();
  // The hung-up callers are withdrawn and the timed-out ones answered; the proof takes ~20 s on one core.
  ASSERT_TRUE(WaitFor([&] { return Awaiting(d) == kWaiters; }, seconds(30))) << "awaiting " << Awaiting(d);

  v1::AwaitProofResponse last = Await(*stub, id);  // one more, synchronous: returns when the job ends
  ASSERT_EQ(last.status(), v1::AwaitProofResponse::COMPLETED) << last.error_message();
  ASSERT_TRUE(VerifyFixtureProof(last.proof()));
  ASSERT_TRUE(WaitFor([&] { return Awaiting(d) == 0; }, seconds(30)));
  cq.Shutdown();
  collector.join();

  std::map<std::string, int> outcomes;
  for (int i = 0; i < kWaiters + kTimeouts + kHangUps; ++i) {
    const Call& c = *calls[i];
    ASSERT_TRUE(c.done) << "call " << i;
    if (i < kWaiters) {
      ASSERT_TRUE(c.status.ok()) << "call " << i << ": " << c.status.error_message();
      EXPECT_EQ(c.resp.status(), v1::AwaitProofResponse::COMPLETED) << "call " << i;
      EXPECT_EQ(c.resp.proof(), last.proof()) << "call " << i;
    } else if (i < kWaiters + kHangUps) {
      EXPECT_EQ(c.status.error_code(), grpc::StatusCode::CANCELLED) << "call " << i;
    } else {
      ASSERT_TRUE(c.status.ok()) << "call " << i << ": " << c.status.error_message();
      EXPECT_EQ(c.resp.status(), v1::AwaitProofResponse::TIMEOUT) << "call " << i;
      EXPECT_GE(c.answered - c.started, milliseconds(1500));
      EXPECT_LT(c.answered - c.started, seconds(15));
    }
    outcomes[c.status.ok() ? v1::AwaitProofResponse::Status_Name(c.resp.status())
                           : std::to_string(int(c.status.error_code()))]++;
  }
  for (const auto& [what, n] : outcomes) std::printf("%s: %d\n", what.c_str(), n);
  EXPECT_EQ(d.Signal(SIGTERM), 0);
}

}  // namespace
}  // namespace cuzk::test
