// libFuzzer target: SubmitProofRequest validation (daemon/request_validation.hpp,
// ValidateSubmit), from the protobuf bytes a client sends. Input: the
// serialized message; bytes that protobuf itself refuses end there (gRPC
// refuses them before the handler runs).
//
// Oracles: whatever ValidateSubmit throws maps (daemon/errors.hpp, the one
// code map the service uses) to INVALID_ARGUMENT or UNIMPLEMENTED: INTERNAL
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // protobuf logs every string field that is not UTF-8: millions of lines.
  static const bool quiet = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)quiet;
  cuzk::v1::SubmitProofRequest request;
  if (!request.ParseFromArray(data, int(size))) return 0;
  cuzk::daemon::ValidatedRequest v;
  try {
    v = cuzk::daemon::ValidateSubmit(request);
  } catch (...) {
    grpc::Status status = cuzk::daemon::ToGrpcStatus(std::current_exception());
    if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
        status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      if (status.error_message().empty()) std::abort();  // a refusal always says why
      return 0;
    }
    std::fprintf(stderr, "ValidateSubmit: %s: %s\n", cuzk::daemon::GrpcCodeName(status.error_code()),
                 status.error_message().c_str());
    std::abort();
  }
  if (!v.job || v.circuit_id.empty() || v.digest.size() != 32) std::abort();
  if (v.job->kind == cuzk::prover::JobKind::kSnapDeals && v.job->partitions.size() != v.job->shape.partitions) {
    std::abort();
  }
  return 0;
}
