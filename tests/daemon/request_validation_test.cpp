// ValidateSubmit's commitment forms against the fixture's 2 KiB request:
// raw 32 bytes and Curio's earlier CID bytes (CIDv1, codec and multihash per
// field) give the same job; a wrong codec, multihash, length or version is
// refused naming the field and what was expected.
#include <gtest/gtest.h>

#include <string>

#include "daemon/errors.hpp"
#include "daemon/request_validation.hpp"
#include "tests/daemon/snap_request.hpp"

namespace cuzk::daemon {
namespace {

std::string Varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out += char(b);
  } while (v);
  return out;
}

std::string Cid(uint64_t codec, uint64_t multihash, const std::string& digest) {
  return Varint(1) + Varint(codec) + Varint(multihash) + Varint(digest.size()) + digest;
}

std::string ErrorOf(const cuzk::v1::SubmitProofRequest& r) {
  try {
    ValidateSubmit(r);
  } catch (const InvalidRequestError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RequestValidation, CommitmentsAsRawBytesOrCidBytesGiveTheSameJob) {
  const cuzk::v1::SubmitProofRequest raw = test::FixtureSnapRequest("raw");
  const ValidatedRequest want = ValidateSubmit(raw);
  cuzk::v1::SubmitProofRequest cid = raw;
  cid.set_comm_r_old(Cid(0xf102, 0xb401, raw.comm_r_old()));
  cid.set_comm_r_new(Cid(0xf102, 0xb401, raw.comm_r_new()));
  cid.set_comm_d_new(Cid(0xf101, 0x1012, raw.comm_d_new()));
  EXPECT_EQ(cid.comm_r_old().size(), 40u);  // 1 + 3 + 3 + 1 + 32
  const ValidatedRequest got = ValidateSubmit(cid);
  EXPECT_EQ(got.job->commitments.comm_r_old, want.job->commitments.comm_r_old);
  EXPECT_EQ(got.job->commitments.comm_r_new, want.job->commitments.comm_r_new);
  EXPECT_EQ(got.job->commitments.comm_d_new, want.job->commitments.comm_d_new);
  EXPECT_EQ(got.circuit_id, want.circuit_id);
}

TEST(RequestValidation, WrongCidsAreRefusedNamingTheFieldAndTheExpectedForm) {
  const cuzk::v1::SubmitProofRequest raw = test::FixtureSnapRequest("bad");
  auto with = [&](auto set) {
    cuzk::v1::SubmitProofRequest r = raw;
    set(r);
    return ErrorOf(r);
  };
  auto has = [](const std::string& e, const std::string& what) { return e.find(what) != std::string::npos; };
  // CommD given with the sealed codec.
  std::string e = with([&](auto& r) { r.set_comm_d_new(Cid(0xf102, 0xb401, raw.comm_d_new())); });
  EXPECT_TRUE(has(e, "comm_d_new") && has(e, "codec 0xf102") && has(e, "0xf101")) << e;
  // CommR with CommD's multihash.
  e = with([&](auto& r) { r.set_comm_r_new(Cid(0xf102, 0x1012, raw.comm_r_new())); });
  EXPECT_TRUE(has(e, "comm_r_new") && has(e, "multihash 0x1012") && has(e, "0xb401")) << e;
  // Truncated digest, CIDv0-like version byte, 33 raw bytes.
  e = with([&](auto& r) { r.set_comm_r_old(Cid(0xf102, 0xb401, raw.comm_r_old()).substr(0, 39)); });
  EXPECT_TRUE(has(e, "comm_r_old") && has(e, "digest is 31 bytes")) << e;
  e = with([&](auto& r) { r.set_comm_r_old("\x12" + Cid(0xf102, 0xb401, raw.comm_r_old()).substr(1)); });
  EXPECT_TRUE(has(e, "comm_r_old") && has(e, "not a CIDv1")) << e;
  e = with([&](auto& r) { r.set_comm_r_old(raw.comm_r_old() + "x"); });
  EXPECT_TRUE(has(e, "comm_r_old") && has(e, "expected 32 raw bytes")) << e;
  // A CID around a value that is not a field element.
  e = with([&](auto& r) { r.set_comm_r_old(Cid(0xf102, 0xb401, std::string(32, '\xff'))); });
  EXPECT_TRUE(has(e, "comm_r_old") && has(e, "canonical")) << e;
}

}  // namespace
}  // namespace cuzk::daemon
