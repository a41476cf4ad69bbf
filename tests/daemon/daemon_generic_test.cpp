// GENERIC_R1CS jobs (our proto addition) through the real daemon: a circom
// circuit and snarkjs zkey in the parameter directory (r1cs fixture), the
// witness in the request; the proof verifies under the zkey's verifying key.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include "engine/circuits/snarkjs/wtns_file.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/verifier.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;

std::string WitnessBytes(const std::vector<ff::Fr>& w) {
  std::string out;
  for (const ff::Fr& x : w) {
    const filecoin::Domain d = filecoin::DomainFromFr(x);
    out.append(d.begin(), d.end());
  }
  return out;
}

TEST(DaemonGenericR1cs, CircomCircuitProvesAndVerifies) {
  const std::string dir = R1csFixtureDir();
  const std::vector<ff::Fr> witness = snarkjs::ReadWtns(dir + "/multi_public.wtns");
  const snarkjs::ZkeyFile zkey = snarkjs::ReadZkey(dir + "/multi_public.zkey");
  DaemonProcess d("", true, dir);
  auto stub = d.Stub();

  v1::SubmitProofRequest req;
  req.set_proof_kind(v1::GENERIC_R1CS);
  req.set_circuit_id("multi_public");
  req.set_witness(WitnessBytes(witness));
  v1::SubmitProofResponse resp;
  ASSERT_TRUE(Submit(*stub, req, &resp).ok());
  const v1::AwaitProofResponse done = Await(*stub, resp.job_id());
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message() << "\n" << d.Log();
  ASSERT_EQ(done.proof().size(), 192u);
  std::string why;
  auto proof = groth16::DecodeProof(std::span(reinterpret_cast<const uint8_t*>(done.proof().data()), 192), &why);
  ASSERT_TRUE(proof) << why;
  const auto pvk = groth16::PrepareVerifyingKey(zkey.pk.vk);
  const std::vector<ff::Fr> publics(witness.begin() + 1, witness.begin() + 1 + zkey.n_public);
  EXPECT_TRUE(groth16::Verify(pvk, *proof, publics));
  std::vector<ff::Fr> other = publics;
  other[0] += ff::Fr::One();
  EXPECT_FALSE(groth16::Verify(pvk, *proof, other));

  // Refused before queueing: wrong witness length, non-canonical value, bad or unknown circuit ids.
  v1::SubmitProofRequest bad = req;
  bad.mutable_witness()->resize(req.witness().size() - 32);
  grpc::Status s = Submit(*stub, bad, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("variables"), std::string::npos) << s.error_message();
  bad = req;
  std::fill(bad.mutable_witness()->begin() + 32, bad.mutable_witness()->begin() + 64, char(0xff));
  s = Submit(*stub, bad, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("witness[1]"), std::string::npos) << s.error_message();
  bad = req;
  bad.set_circuit_id("../multi_public");
  EXPECT_EQ(Submit(*stub, bad, &resp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  bad.set_circuit_id("no_such_circuit");
  s = Submit(*stub, bad, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("no_such_circuit.r1cs"), std::string::npos) << s.error_message();

  // A witness that does not satisfy the circuit: accepted (the shape is right), then FAILED.
  bad = req;
  std::vector<ff::Fr> wrong = witness;
  wrong.back() += ff::Fr::One();
  bad.set_witness(WitnessBytes(wrong));
  ASSERT_TRUE(Submit(*stub, bad, &resp).ok());
  const v1::AwaitProofResponse failed = Await(*stub, resp.job_id());
  EXPECT_EQ(failed.status(), v1::AwaitProofResponse::FAILED);
  EXPECT_FALSE(failed.error_message().empty());

  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

}  // namespace
}  // namespace cuzk::test
