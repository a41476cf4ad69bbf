#include "daemon/request_scan.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <climits>
#include <set>

#include "daemon/errors.hpp"

namespace cuzk::daemon {
namespace {

namespace v1 = cuzk::v1;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedInputStream;
using WireFormat = google::protobuf::internal::WireFormatLite;

// No proof kind sends more elements of one repeated field (a WindowPoSt
// partition has at most 2349 sectors); the ceiling holds whatever the kind,
// so a message whose proof_kind comes last cannot make the scan run long.
constexpr uint64_t kMaxRepeatedElements = 65536;

const char* WireTypeName(uint32_t wire_type) {
  switch (wire_type) {
    case 0: return "varint";
    case 1: return "fixed64";
    case 2: return "length-delimited";
    case 5: return "fixed32";
    default: return "group";
  }
}

std::string FieldName(const google::protobuf::Descriptor* type, uint32_t number) {
  const FieldDescriptor* f = type->FindFieldByNumber(int(number));
  return (f ? f->name() + " (field " : "unknown field (") + std::to_string(number) + ")";
}

// Walks one message's fields up to the stream's current limit.
class Scanner {
 public:
  Scanner(CodedInputStream& in, const char* what) : in_(in), what_(what) {}

  [[noreturn]] void Malformed(const std::string& why) const {
    throw InvalidRequestError(std::string(what_) + " is not a valid protobuf message: " + why + " (at byte " +
                              std::to_string(in_.CurrentPosition()) + ")");
  }

  // Calls on_field(number, wire_type, length) for each length-delimited
  // field before skipping it (it may consume the payload itself and return
  // true); varints go to on_varint.
  template <class OnLength, class OnVarint>
  void Walk(const google::protobuf::Descriptor* type, OnLength on_length, OnVarint on_varint) {
    for (;;) {
      if (in_.BytesUntilLimit() == 0) return;  // the end of the message (or of `submit`)
      const uint32_t tag = in_.ReadTag();
      if (tag == 0) Malformed("field number 0 or a truncated tag");
      const uint32_t number = tag >> 3, wire_type = tag & 7;
      CheckWireType(type, number, wire_type);
      switch (wire_type) {
        case 0: {
          uint64_t v = 0;
          if (!in_.ReadVarint64(&v)) Malformed("a truncated varint in " + FieldName(type, number));
          on_varint(number, v);
          break;
        }
        case 1: {
          uint64_t v = 0;
          if (!in_.ReadLittleEndian64(&v)) Malformed("a truncated fixed64 in " + FieldName(type, number));
          break;
        }
        case 5: {
          uint32_t v = 0;
          if (!in_.ReadLittleEndian32(&v)) Malformed("a truncated fixed32 in " + FieldName(type, number));
          break;
        }
        case 2: {
          uint32_t length = 0;
          if (!in_.ReadVarint32(&length)) Malformed("a truncated length of " + FieldName(type, number));
          if (int64_t(length) > int64_t(in_.BytesUntilLimit()))
            Malformed(FieldName(type, number) + " declares " + std::to_string(length) + " bytes, only " +
                      std::to_string(in_.BytesUntilLimit()) + " remain");
          if (!on_length(number, length) && !in_.Skip(int(length))) Malformed("a truncated " + FieldName(type, number));
          break;
        }
        default: Malformed("wire type " + std::to_string(wire_type) + " (groups and unknown types are not used)");
      }
    }
  }

 private:
  // A known field with another wire type would be kept as an unknown field
  // (a copy): refused, like any other malformed field.
  void CheckWireType(const google::protobuf::Descriptor* type, uint32_t number, uint32_t wire_type) const {
    if (number == 0) Malformed("field number 0");
    const FieldDescriptor* f = type->FindFieldByNumber(int(number));
    if (!f) return;
    const uint32_t expected = WireFormat::WireTypeForFieldType(WireFormat::FieldType(f->type()));
    if (wire_type != expected)
      Malformed(FieldName(type, number) + " has wire type " + WireTypeName(wire_type) + ", expected " +
                WireTypeName(expected));
  }

  CodedInputStream& in_;
  const char* what_;
};

// The fields of one SubmitProofRequest, up to the stream's current limit.
void ScanSubmitFields(CodedInputStream& in, const RequestLimits& limits, const char* what, SubmitScan& out) {
  Scanner scanner(in, what);
  const auto* type = v1::SubmitProofRequest::descriptor();
  scanner.Walk(
      type,
      [&](uint32_t number, uint32_t length) {
        FieldSeen& seen = out.fields[number];
        ++seen.count;
        seen.bytes += length;
        seen.max_bytes = std::max<uint64_t>(seen.max_bytes, length);
        const bool local = IsLocalKind(out.proof_kind);
        if (number == v1::SubmitProofRequest::kVanillaProofsFieldNumber) {
          if (seen.count > kMaxRepeatedElements || (local && seen.count > limits.max_vanilla_proofs))
            throw InvalidRequestError(std::string(what) + ": more than " +
                                      std::to_string(local ? limits.max_vanilla_proofs : kMaxRepeatedElements) +
                                      " vanilla_proofs elements (the limit requests.max_vanilla_proofs)");
          if (local && length > limits.max_vanilla_proof_bytes)
            throw InvalidRequestError(std::string(what) + ": vanilla_proofs[" + std::to_string(seen.count - 1) +
                                      "] is " + std::to_string(length) + " bytes, more than the limit " +
                                      std::to_string(limits.max_vanilla_proof_bytes) +
                                      " (requests.max_vanilla_proof_size)");
        } else if (!type->FindFieldByNumber(int(number))) {
          if (seen.count > kMaxRepeatedElements || length > limits.max_unknown_field_bytes)
            throw InvalidRequestError(
                std::string(what) + ": unknown field " + std::to_string(number) + " (" + std::to_string(length) +
                " bytes, " + std::to_string(seen.count) + " times): this daemon keeps at most " +
                std::to_string(limits.max_unknown_field_bytes) + " bytes of a field it does not know");
        } else if (seen.count > 1) {
          throw InvalidRequestError(std::string(what) + ": " + FieldName(type, number) +
                                    " is given more than once (it is not a repeated field)");
        }
        return false;
      },
      [&](uint32_t number, uint64_t value) {
        ++out.fields[number].count;
        if (number == v1::SubmitProofRequest::kProofKindFieldNumber)
          out.proof_kind = value > INT_MAX ? v1::ProofKind(-1) : v1::ProofKind(int(value));
      });
  // The element limits once more: proof_kind may have come after them.
  if (IsLocalKind(out.proof_kind)) {
    const FieldSeen& proofs = out.fields[v1::SubmitProofRequest::kVanillaProofsFieldNumber];
    if (proofs.count > limits.max_vanilla_proofs)
      throw InvalidRequestError(std::string(what) + ": " + std::to_string(proofs.count) +
                                " vanilla_proofs elements, more than the limit " +
                                std::to_string(limits.max_vanilla_proofs) + " (requests.max_vanilla_proofs)");
    if (proofs.max_bytes > limits.max_vanilla_proof_bytes)
      throw InvalidRequestError(std::string(what) + ": a vanilla_proofs element of " +
                                std::to_string(proofs.max_bytes) + " bytes, more than the limit " +
                                std::to_string(limits.max_vanilla_proof_bytes) + " (requests.max_vanilla_proof_size)");
  }
}

// A stream over gRPC's slices (no copy), limited to the message.
struct BufferStream {
  explicit BufferStream(const grpc::ByteBuffer& bytes) : buffer(bytes), reader(&buffer), in(&reader) {
    in.SetTotalBytesLimit(INT_MAX);
    in.PushLimit(int(std::min<size_t>(buffer.Valid() ? buffer.Length() : 0, INT_MAX)));
  }
  grpc::ByteBuffer buffer;  // shares the slices
  grpc::ProtoBufferReader reader;
  CodedInputStream in;
};

}  // namespace

bool IsLocalKind(v1::ProofKind kind) { return kind == v1::SNAP_DEALS_UPDATE || kind == v1::GENERIC_R1CS; }

SubmitScan ScanSubmitRequest(const grpc::ByteBuffer& bytes, const RequestLimits& limits) {
  SubmitScan out;
  if (!bytes.Valid()) return out;
  BufferStream s(bytes);
  ScanSubmitFields(s.in, limits, "SubmitProofRequest", out);
  return out;
}

SubmitScan ScanProveRequest(const grpc::ByteBuffer& bytes, const RequestLimits& limits) {
  SubmitScan out;
  bool seen_submit = false;
  if (bytes.Valid()) {
    BufferStream s(bytes);
    Scanner scanner(s.in, "ProveRequest");
    scanner.Walk(
        v1::ProveRequest::descriptor(),
        [&](uint32_t number, uint32_t length) {
          if (number == v1::ProveRequest::kSubmitFieldNumber) {
            if (seen_submit) throw InvalidRequestError("ProveRequest: submit (field 1) is given more than once");
            seen_submit = true;
            const auto limit = s.in.PushLimit(int(length));
            ScanSubmitFields(s.in, limits, "ProveRequest.submit", out);
            s.in.PopLimit(limit);
            return true;
          }
          if (length > limits.max_unknown_field_bytes)
            throw InvalidRequestError("ProveRequest: unknown field " + std::to_string(number) + " of " +
                                      std::to_string(length) + " bytes (at most " +
                                      std::to_string(limits.max_unknown_field_bytes) + " are kept)");
          return false;
        },
        [](uint32_t, uint64_t) {});
  }
  if (!seen_submit) throw InvalidRequestError("ProveRequest: submit (field 1, the SubmitProofRequest) is missing");
  return out;
}

void CheckFieldsForKind(const SubmitScan& scan) {
  using R = v1::SubmitProofRequest;
  static const std::set<uint32_t> kSnapFields = {R::kRequestIdFieldNumber, R::kVanillaProofsFieldNumber,
                                                 R::kCommROldFieldNumber, R::kCommRNewFieldNumber,
                                                 R::kCommDNewFieldNumber};
  static const std::set<uint32_t> kGenericFields = {R::kRequestIdFieldNumber, R::kCircuitIdFieldNumber,
                                                    R::kWitnessFieldNumber};
  const std::set<uint32_t>* used = nullptr;
  if (scan.proof_kind == v1::SNAP_DEALS_UPDATE) used = &kSnapFields;
  if (scan.proof_kind == v1::GENERIC_R1CS) used = &kGenericFields;
  if (!used) return;
  const auto* type = R::descriptor();
  for (const auto& [number, seen] : scan.fields) {
    const FieldDescriptor* f = type->FindFieldByNumber(int(number));
    if (!f || seen.bytes == 0 || used->count(number)) continue;
    if (f->type() != FieldDescriptor::TYPE_BYTES && f->type() != FieldDescriptor::TYPE_STRING) continue;
    throw InvalidRequestError(FieldName(type, number) + ": " + std::to_string(seen.bytes) + " bytes given, but " +
                              v1::ProofKind_Name(scan.proof_kind) + " requests do not use this field (leave it empty)");
  }
}

void ParseInto(const grpc::ByteBuffer& bytes, google::protobuf::Message* message) {
  if (!bytes.Valid()) return;  // no bytes: the empty message
  grpc::ByteBuffer shared(bytes);
  grpc::ProtoBufferReader reader(&shared);
  if (!reader.status().ok() || !message->ParseFromZeroCopyStream(&reader)) {
    throw InvalidRequestError("the request is not a valid " + message->GetDescriptor()->full_name() +
                              " (protobuf parsing failed)");
  }
}

grpc::ByteBuffer Serialize(const google::protobuf::Message& message) {
  const std::string bytes = message.SerializeAsString();
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace cuzk::daemon
