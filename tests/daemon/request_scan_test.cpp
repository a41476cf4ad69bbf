// The wire scan that decides what a request may cost before it is parsed
// (daemon/request_scan.hpp), on hand-made protobuf bytes: Curio's SnapDeals
// request passes; too many or too large vanilla proofs, fields the kind does
// not use, unknown fields over their limit, malformed bytes and a ProveRequest
// with two or no `submit` are refused naming what failed. No daemon, no
// fixture: milliseconds.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "daemon/errors.hpp"
#include "daemon/request_scan.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"

namespace cuzk::daemon {
namespace {

namespace v1 = cuzk::v1;
// One empty vanilla_proofs element: tag 11, length 0.
const std::string kEmptyElement("\x5a\x00", 2);

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
std::string VarintField(uint32_t number, uint64_t v) { return Varint(number << 3) + Varint(v); }
std::string BytesField(uint32_t number, const std::string& bytes) {
  return Varint((number << 3) | 2) + Varint(bytes.size()) + bytes;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// What Curio's ProveUpdateCuzk sends for a 32 GiB sector (16 partitions; CID commitments).
v1::SubmitProofRequest CurioSnapRequest() {
  v1::SubmitProofRequest r;
  r.set_request_id("snap-1000-42");
  r.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  r.set_sector_size(32ull << 30);
  r.set_registered_proof(3);
  r.set_priority(v1::NORMAL);
  for (int i = 0; i < 16; ++i) r.add_vanilla_proofs(std::string(1000, char('a' + i)));
  r.set_sector_number(42);
  r.set_miner_id(1000);
  r.set_comm_r_old(std::string(40, 'o'));
  r.set_comm_r_new(std::string(40, 'n'));
  r.set_comm_d_new(std::string(40, 'd'));
  return r;
}

std::string ErrorOf(auto&& f) {
  try {
    f();
  } catch (const InvalidRequestError& e) {
    return e.what();
  }
  return "(accepted)";
}
bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RequestScan, CurioSnapRequestPasses) {
  const std::string bytes = CurioSnapRequest().SerializeAsString();
  const SubmitScan scan = ScanSubmitRequest(Buffer(bytes), RequestLimits{});
  EXPECT_EQ(scan.proof_kind, v1::SNAP_DEALS_UPDATE);
  EXPECT_EQ(scan.fields.at(11).count, 16u);
  EXPECT_EQ(scan.fields.at(11).max_bytes, 1000u);
  EXPECT_NO_THROW(CheckFieldsForKind(scan));
  // The same inside a ProveRequest.
  v1::ProveRequest prove;
  *prove.mutable_submit() = CurioSnapRequest();
  const SubmitScan inner = ScanProveRequest(Buffer(prove.SerializeAsString()), RequestLimits{});
  EXPECT_EQ(inner.fields.at(11).count, 16u);
  EXPECT_NO_THROW(CheckFieldsForKind(inner));
  EXPECT_EQ(ParseMessage<v1::ProveRequest>(Buffer(prove.SerializeAsString())).submit().vanilla_proofs_size(), 16);
}

TEST(RequestScan, TheDefaultElementLimitHoldsTheLargestPartitionProof) {
  const size_t largest = filecoin::PartitionProofSize(filecoin::SectorShape::FromSectorSize(64ull << 30));
  std::printf("SnapDeals partition proof: 32 GiB %zu bytes, 64 GiB %zu bytes; limit %llu\n",
              filecoin::PartitionProofSize(filecoin::SectorShape::FromSectorSize(32ull << 30)), largest,
              (unsigned long long)RequestLimits{}.max_vanilla_proof_bytes);
  EXPECT_GE(RequestLimits{}.max_vanilla_proof_bytes, largest);
  EXPECT_LE(RequestLimits{}.max_vanilla_proof_bytes, 4 * largest);
}

TEST(RequestScan, TooManyEmptyElementsStopTheScanAtTheLimit) {
  // Issue 19's amplification: millions of empty vanilla_proofs (2 bytes each).
  std::string bytes = VarintField(2, v1::SNAP_DEALS_UPDATE);
  for (int i = 0; i < 5'000'000; ++i) bytes += kEmptyElement;
  // The 10 MB message is built and copied into its buffer before the clock
  // starts: only the scan, which must stop at the limit, is timed.
  const grpc::ByteBuffer buffer = Buffer(bytes);
  const auto start = std::chrono::steady_clock::now();
  std::string e = ErrorOf([&] { ScanSubmitRequest(buffer, RequestLimits{}); });
  EXPECT_TRUE(Has(e, "more than 16 vanilla_proofs") && Has(e, "requests.max_vanilla_proofs")) << e;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
  // proof_kind last: the kind-free ceiling still stops it, and the kind's limit applies at the end.
  std::string reordered;
  for (int i = 0; i < 100; ++i) reordered += kEmptyElement;
  reordered += VarintField(2, v1::SNAP_DEALS_UPDATE);
  e = ErrorOf([&] { ScanSubmitRequest(Buffer(reordered), RequestLimits{}); });
  EXPECT_TRUE(Has(e, "100 vanilla_proofs elements, more than the limit 16")) << e;
  std::string unkinded;
  for (int i = 0; i < 70'000; ++i) unkinded += kEmptyElement;
  e = ErrorOf([&] { ScanSubmitRequest(Buffer(unkinded), RequestLimits{}); });
  EXPECT_TRUE(Has(e, "more than 65536 vanilla_proofs")) << e;
}

TEST(RequestScan, ALargeElementIsRefusedByItsIndex) {
  RequestLimits limits;
  limits.max_vanilla_proof_bytes = 1000;
  v1::SubmitProofRequest r = CurioSnapRequest();
  r.set_vanilla_proofs(3, std::string(1001, 'x'));
  const std::string e = ErrorOf([&] { ScanSubmitRequest(Buffer(r.SerializeAsString()), limits); });
  EXPECT_TRUE(Has(e, "vanilla_proofs[3] is 1001 bytes") && Has(e, "requests.max_vanilla_proof_size")) << e;
}

TEST(RequestScan, KindsWeForwardAreNotHeldToOurLimits) {
  // A WindowPoSt partition of 2349 sectors: one vanilla proof per sector.
  v1::SubmitProofRequest r;
  r.set_proof_kind(v1::WINDOW_POST_PARTITION);
  r.set_randomness(std::string(32, 'r'));
  for (int i = 0; i < 2349; ++i) r.add_vanilla_proofs(std::string(100, 'v'));
  const SubmitScan scan = ScanSubmitRequest(Buffer(r.SerializeAsString()), RequestLimits{});
  EXPECT_EQ(scan.fields.at(11).count, 2349u);
  EXPECT_NO_THROW(CheckFieldsForKind(scan));
}

TEST(RequestScan, FieldsTheKindDoesNotUseAreRefusedByName) {
  v1::SubmitProofRequest snap = CurioSnapRequest();
  snap.set_randomness(std::string(4 << 20, 'r'));
  std::string e = ErrorOf([&] { CheckFieldsForKind(ScanSubmitRequest(Buffer(snap.SerializeAsString()), {})); });
  EXPECT_TRUE(Has(e, "randomness (field 22)") && Has(e, "SNAP_DEALS_UPDATE")) << e;
  snap = CurioSnapRequest();
  snap.set_witness("w");
  e = ErrorOf([&] { CheckFieldsForKind(ScanSubmitRequest(Buffer(snap.SerializeAsString()), {})); });
  EXPECT_TRUE(Has(e, "witness (field 101)")) << e;
  snap = CurioSnapRequest();
  snap.set_vanilla_proof("{}");
  e = ErrorOf([&] { CheckFieldsForKind(ScanSubmitRequest(Buffer(snap.SerializeAsString()), {})); });
  EXPECT_TRUE(Has(e, "vanilla_proof (field 10)")) << e;
  v1::SubmitProofRequest generic;
  generic.set_proof_kind(v1::GENERIC_R1CS);
  generic.set_circuit_id("r1cs-x");
  generic.set_witness(std::string(64, '\0'));
  EXPECT_NO_THROW(CheckFieldsForKind(ScanSubmitRequest(Buffer(generic.SerializeAsString()), {})));
  generic.set_comm_r_old(std::string(32, 'c'));
  e = ErrorOf([&] { CheckFieldsForKind(ScanSubmitRequest(Buffer(generic.SerializeAsString()), {})); });
  EXPECT_TRUE(Has(e, "comm_r_old (field 30)") && Has(e, "GENERIC_R1CS")) << e;
}

TEST(RequestScan, UnknownFieldsAreKeptOnlyWhenSmall) {
  const std::string base = CurioSnapRequest().SerializeAsString();
  EXPECT_NO_THROW(ScanSubmitRequest(Buffer(base + BytesField(50, std::string(100, 'u'))), {}));
  EXPECT_NO_THROW(ScanSubmitRequest(Buffer(base + VarintField(51, 7)), {}));
  const std::string e = ErrorOf([&] { ScanSubmitRequest(Buffer(base + BytesField(50, std::string(5000, 'u'))), {}); });
  EXPECT_TRUE(Has(e, "unknown field 50") && Has(e, "5000 bytes")) << e;
}

TEST(RequestScan, MalformedBytesSayWhereTheyBreak) {
  const std::string good = CurioSnapRequest().SerializeAsString();
  // Truncated in the middle of a vanilla proof.
  std::string e = ErrorOf([&] { ScanSubmitRequest(Buffer(good.substr(0, good.size() / 2)), {}); });
  EXPECT_TRUE(Has(e, "not a valid protobuf message") && Has(e, "at byte")) << e;
  // Garbage, a group, field number 0, a known field with the wrong wire type.
  e = ErrorOf([&] { ScanSubmitRequest(Buffer("\xff\xff\xff\xff"), {}); });
  EXPECT_TRUE(Has(e, "not a valid protobuf message")) << e;
  e = ErrorOf([&] { ScanSubmitRequest(Buffer(Varint((60 << 3) | 3) + "\x0c"), {}); });
  EXPECT_TRUE(Has(e, "wire type 3")) << e;
  e = ErrorOf([&] { ScanSubmitRequest(Buffer(std::string("\x00\x01", 2)), {}); });
  EXPECT_TRUE(Has(e, "field number 0")) << e;
  e = ErrorOf([&] { ScanSubmitRequest(Buffer(BytesField(2, "xx")), {}); });
  EXPECT_TRUE(Has(e, "proof_kind (field 2) has wire type length-delimited, expected varint")) << e;
  e = ErrorOf([&] { ScanSubmitRequest(Buffer(BytesField(1, "a") + BytesField(1, "b")), {}); });
  EXPECT_TRUE(Has(e, "request_id (field 1) is given more than once")) << e;
  // The parse itself names the message type.
  e = ErrorOf([&] { ParseMessage<v1::SubmitProofRequest>(Buffer(BytesField(1, "abc").substr(0, 3))); });
  EXPECT_TRUE(Has(e, "not a valid cuzk.v1.SubmitProofRequest")) << e;
}

TEST(RequestScan, ProveNeedsExactlyOneSubmit) {
  const std::string submit = BytesField(1, CurioSnapRequest().SerializeAsString());
  EXPECT_NO_THROW(ScanProveRequest(Buffer(submit), {}));
  std::string e = ErrorOf([&] { ScanProveRequest(Buffer(submit + submit), {}); });
  EXPECT_TRUE(Has(e, "submit (field 1) is given more than once")) << e;
  e = ErrorOf([&] { ScanProveRequest(Buffer(""), {}); });
  EXPECT_TRUE(Has(e, "submit (field 1, the SubmitProofRequest) is missing")) << e;
  // The limits apply inside submit.
  std::string many = VarintField(2, v1::SNAP_DEALS_UPDATE);
  for (int i = 0; i < 17; ++i) many += kEmptyElement;
  e = ErrorOf([&] { ScanProveRequest(Buffer(BytesField(1, many)), {}); });
  EXPECT_TRUE(Has(e, "ProveRequest.submit: more than 16 vanilla_proofs")) << e;
}

}  // namespace
}  // namespace cuzk::daemon
