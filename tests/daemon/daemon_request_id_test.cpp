// request_id as Curio uses it, through a real daemon and a real gRPC client
// (the 2 KiB fixture): Curio retries a task with the same request_id, so a
// failed job retried under its id runs again, a completed one resubmitted
// returns the same proof at once (no new work), and the same id with other
// inputs starts a new job. Generated job ids (no request_id) are random and
// cannot be taken or steered by a client's request_id.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

// A number under "counters" in GET /status ("submitted", "deduplicated", ...).
uint64_t Counter(DaemonProcess& d, const std::string& name) {
  return GetStatusJson(d.status_port()).at("counters").at(name).get<uint64_t>();
}

void Cancel(v1::ProvingEngine::Stub& stub, const std::string& id) {
  v1::CancelProofRequest req;
  req.set_job_id(id);
  v1::CancelProofResponse resp;
  EXPECT_TRUE(stub.CancelProof(Ctx().get(), req, &resp).ok());
}

// The three retry cases, on one daemon (one parameter load).
TEST(DaemonRequestId, FailedRetriesRunAgainCompletedOnesAnswerAtOnceOtherInputsStartANewJob) {
  DaemonProcess d("");
  auto stub = d.Stub();

  // Well-formed but wrong content: accepted, then FAILED. Curio retries it under the same id.
  v1::SubmitProofRequest bad = FixtureSnapRequest("snap-1000-7");
  (*bad.mutable_vanilla_proofs(0))[0] ^= 1;
  const std::string failed_id = MustSubmit(*stub, bad);
  EXPECT_EQ(failed_id, "snap-1000-7");
  ASSERT_EQ(Await(*stub, failed_id).status(), v1::AwaitProofResponse::FAILED) << d.Log();
  const std::string retry_id = MustSubmit(*stub, bad);
  EXPECT_NE(retry_id, failed_id);  // a new job: the failed one is not handed back
  const v1::AwaitProofResponse retried = Await(*stub, retry_id);
  EXPECT_EQ(retried.status(), v1::AwaitProofResponse::FAILED);  // it ran again (the same inputs fail again)
  EXPECT_EQ(Status(*stub).total_proofs_failed(), 2u);
  // The old job stays readable by its own id.
  EXPECT_EQ(Await(*stub, failed_id, 10).status(), v1::AwaitProofResponse::FAILED);

  // A completed job resubmitted: the same job and proof, at once, with no new work.
  const v1::SubmitProofRequest good = FixtureSnapRequest("snap-1000-8");
  const std::string good_id = MustSubmit(*stub, good);
  const v1::AwaitProofResponse done = Await(*stub, good_id);
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message();
  ASSERT_TRUE(VerifyFixtureProof(done.proof()));
  const uint64_t submitted = Counter(d, "submitted");
  const uint64_t work = Status(*stub).total_proofs_completed();
  const auto t0 = Clock::now();
  v1::ProveRequest prove;
  *prove.mutable_submit() = good;
  v1::ProveResponse again;
  ASSERT_TRUE(stub->Prove(Ctx().get(), prove, &again).ok());
  // Answered from the finished job (the counters below show no new job or proof); a generous bound.
  EXPECT_LT(Clock::now() - t0, seconds(5));
  EXPECT_EQ(again.result().job_id(), good_id);
  EXPECT_EQ(again.result().status(), v1::AwaitProofResponse::COMPLETED);
  EXPECT_EQ(again.result().proof(), done.proof());
  EXPECT_EQ(MustSubmit(*stub, good), good_id);
  EXPECT_EQ(Counter(d, "submitted"), submitted);  // no new job
  EXPECT_EQ(Counter(d, "deduplicated"), 2u);
  EXPECT_EQ(Status(*stub).total_proofs_completed(), work);
  const v1::GetStatusResponse idle = Status(*stub);  // named: the range below must not outlive it
  for (const auto& q : idle.queues()) EXPECT_EQ(q.pending() + q.in_progress(), 0u) << q.proof_kind();

  // The same id with other inputs (another priority changes the request digest): a new job.
  v1::SubmitProofRequest other = good;
  other.set_priority(v1::HIGH);
  const std::string other_id = MustSubmit(*stub, other);
  EXPECT_NE(other_id, good_id);
  EXPECT_EQ(Counter(d, "submitted"), submitted + 1);
  EXPECT_EQ(MustSubmit(*stub, other), other_id);  // the id now names the new job
  Cancel(*stub, other_id);
  EXPECT_EQ(Await(*stub, other_id).status(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_EQ(Await(*stub, good_id, 10).proof(), done.proof());  // the completed one is still there
  // After the cancellation the id starts a new job again.
  const std::string after_cancel = MustSubmit(*stub, other);
  EXPECT_NE(after_cancel, other_id);
  Cancel(*stub, after_cancel);
}

// Generated ids (no request_id) are "job-" + 32 random hex digits: a
// client's "job-94" neither takes nor predicts the next one, and a client
// that sends a generated id as its request_id gets a job of its own.
TEST(DaemonRequestId, GeneratedIdsLiveInTheirOwnNamespace) {
  DaemonProcess d("");
  auto stub = d.Stub();
  EXPECT_EQ(MustSubmit(*stub, FixtureSnapRequest("job-94")), "job-94");
  std::set<std::string> generated;
  for (int i = 0; i < 3; ++i) {
    const std::string id = MustSubmit(*stub, FixtureSnapRequest(""));
    ASSERT_EQ(id.size(), 36u) << id;
    EXPECT_EQ(id.rfind("job-", 0), 0u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 4), std::string::npos) << id;
    generated.insert(id);
  }
  EXPECT_EQ(generated.size(), 3u);
  EXPECT_EQ(generated.count("job-95"), 0u);
  const std::string first = *generated.begin();
  const std::string taker = MustSubmit(*stub, FixtureSnapRequest(first));
  EXPECT_NE(taker, first);
  // Job ids stay valid handles: AwaitProof and CancelProof take them.
  for (const std::string& id : generated) Cancel(*stub, id);
  Cancel(*stub, taker);
  Cancel(*stub, "job-94");
  for (const std::string& id : generated) EXPECT_EQ(Await(*stub, id).status(), v1::AwaitProofResponse::CANCELLED) << id;
  EXPECT_EQ(Await(*stub, taker).status(), v1::AwaitProofResponse::CANCELLED);
}

}  // namespace
}  // namespace cuzk::test
