#pragma once
// What one request may cost, decided from its wire bytes before anything is
// copied. A parsed SubmitProofRequest costs far more than its bytes: each
// `repeated bytes` element is a std::string (32 bytes + heap block), so 100
// million empty vanilla_proofs elements (200 MB on the wire) grew the daemon
// by 3.3 GB (issue 19, finding 2). The scan walks the top-level tags and
// lengths of the message in gRPC's own buffer (no copy), counts and sizes the
// fields and stops at the first limit it passes; only then is the message
// parsed. A field the proof kind does not use (a 400 MB `randomness` on a
// SnapDeals request, finding 7) is refused by name, and bytes that are not a
// protobuf message get INVALID_ARGUMENT saying where they broke (finding 8).
//
//   SubmitScan scan = ScanSubmitRequest(bytes, limits);     // InvalidRequestError
//   CheckFieldsForKind(scan);                               // a kind we prove: refuses unused fields
//   auto req = ParseMessage<v1::SubmitProofRequest>(bytes); // InvalidRequestError
//
// Cost: one pass over the tags (a few dozen fields for a real request; the
// element count stops the pass at limit + 1 elements), no allocation.
#include <cstdint>
#include <map>
#include <string>

#include <grpcpp/support/byte_buffer.h>

#include "cuzk/v1/proving.pb.h"

namespace cuzk::daemon {

struct RequestLimits {
  // vanilla_proofs elements of a kind this daemon proves: SnapDeals sectors
  // of 32 and 64 GiB have 16 partitions, the most of any size.
  uint32_t max_vanilla_proofs = 16;
  // One vanilla_proofs element: a 64 GiB SnapDeals partition proof is 575,528 bytes.
  uint64_t max_vanilla_proof_bytes = 1ull << 20;
  // A length-delimited field the proto does not define (a newer client's
  // addition would be small; a hostile one is not kept in memory).
  uint64_t max_unknown_field_bytes = 4096;
};

// One field number's occurrences in the scanned message.
struct FieldSeen {
  uint64_t count = 0;      // occurrences
  uint64_t bytes = 0;      // payload bytes of its length-delimited occurrences
  uint64_t max_bytes = 0;  // the largest one
};

struct SubmitScan {
  cuzk::v1::ProofKind proof_kind = cuzk::v1::PROOF_KIND_UNSPECIFIED;  // the last value, as protobuf merges
  std::map<uint32_t, FieldSeen> fields;                               // by field number
};

// Scans a serialized SubmitProofRequest. InvalidRequestError: malformed
// wire bytes (with the byte offset), more vanilla_proofs than the limit or
// one larger than the limit (for a kind this daemon proves; other kinds are
// forwarded or refused whole), or an unknown field over its limit.
SubmitScan ScanSubmitRequest(const grpc::ByteBuffer& bytes, const RequestLimits& limits);
// A ProveRequest: its one `submit` field scanned as above; `submit` given
// twice (protobuf would merge them) or missing is refused.
SubmitScan ScanProveRequest(const grpc::ByteBuffer& bytes, const RequestLimits& limits);

// True for the kinds this build proves (SNAP_DEALS_UPDATE, GENERIC_R1CS).
bool IsLocalKind(cuzk::v1::ProofKind kind);
// For a kind this daemon proves: every length-delimited field the kind does
// not use, if present, is an InvalidRequestError naming it and the kind
// (SnapDeals has no vanilla_proof, randomness, circuit_id or witness; a
// generic job has no vanilla proofs, randomness or commitments).
void CheckFieldsForKind(const SubmitScan& scan);

// Parses a whole message from gRPC's buffer; InvalidRequestError naming the
// message type when the bytes are not one.
void ParseInto(const grpc::ByteBuffer& bytes, google::protobuf::Message* message);
template <class Message>
Message ParseMessage(const grpc::ByteBuffer& bytes) {
  Message m;
  ParseInto(bytes, &m);
  return m;
}
// A message as gRPC's response buffer.
grpc::ByteBuffer Serialize(const google::protobuf::Message& message);

}  // namespace cuzk::daemon
