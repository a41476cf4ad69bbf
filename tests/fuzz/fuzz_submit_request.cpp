// libFuzzer target: SubmitProofRequest validation, from the protobuf bytes a
// client sends, in the order ProvingService::SubmitProof runs it: the wire
// scan (daemon/request_scan.hpp: limits, fields the kind does not use, bytes
// that are not a message), the parse, then ValidateSubmit
// (daemon/request_validation.hpp). Input: the serialized message. A tree
// without request_scan.hpp (before issue 19's request limits) runs protobuf's
// parse and ValidateSubmit only.
//
// Oracles: whatever is thrown maps (daemon/errors.hpp, the one code map the
// service uses) to INVALID_ARGUMENT or UNIMPLEMENTED with a message: INTERNAL
// for a client's bad bytes, or any other code, is a finding. An accepted
// request has a job whose partitions match its shape, a circuit id and a
// 32-byte digest.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <google/protobuf/stubs/logging.h>

#include "cuzk/v1/proving.pb.h"
#include "daemon/errors.hpp"
#include "daemon/request_validation.hpp"
#if __has_include("daemon/request_scan.hpp")
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include "daemon/request_scan.hpp"
#define CUZK_FUZZ_REQUEST_SCAN 1
#endif

namespace {

cuzk::daemon::ValidatedRequest Validate(const uint8_t* data, size_t size, bool* parsed) {
#ifdef CUZK_FUZZ_REQUEST_SCAN
  grpc::Slice slice(data, size);
  grpc::ByteBuffer bytes(&slice, 1);
  cuzk::daemon::CheckFieldsForKind(cuzk::daemon::ScanSubmitRequest(bytes, cuzk::daemon::RequestLimits{}));
  *parsed = true;
  return cuzk::daemon::ValidateSubmit(cuzk::daemon::ParseMessage<cuzk::v1::SubmitProofRequest>(bytes));
#else
  cuzk::v1::SubmitProofRequest request;
  *parsed = request.ParseFromArray(data, int(size));  // gRPC refuses what protobuf cannot parse
  if (!*parsed) return {};
  return cuzk::daemon::ValidateSubmit(request);
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // protobuf logs every string field that is not UTF-8: millions of lines.
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
  bool parsed = false;
  cuzk::daemon::ValidatedRequest v;
  try {
    v = Validate(data, size, &parsed);
  } catch (...) {
    grpc::Status status = cuzk::daemon::ToGrpcStatus(std::current_exception());
    if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
        status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      if (status.error_message().empty()) std::abort();  // a refusal always says why
      return 0;
    }
    std::fprintf(stderr, "SubmitProof validation: %s: %s\n", cuzk::daemon::GrpcCodeName(status.error_code()),
                 status.error_message().c_str());
    std::abort();
  }
  if (!parsed) return 0;
  if (!v.job || v.circuit_id.empty() || v.digest.size() != 32) std::abort();
  if (v.job->kind == cuzk::prover::JobKind::kSnapDeals && v.job->partitions.size() != v.job->shape.partitions) {
    std::abort();
  }
  return 0;
}
