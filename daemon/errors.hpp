#pragma once
// The daemon's error types and their one mapping to gRPC status codes
// (ARCHITECTURE.md, error model). Everything the service throws goes through
// ToGrpcStatus; a message always names the problem.
//
//   try { ... } catch (...) { return ToGrpcStatus(std::current_exception()); }
#include <exception>
#include <stdexcept>
#include <string>

#include <grpcpp/support/status.h>

namespace cuzk::daemon {

// Malformed request: INVALID_ARGUMENT.
class InvalidRequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// A proof kind this daemon does not prove: UNIMPLEMENTED.
class UnimplementedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// INVALID_ARGUMENT (InvalidRequestError, prover::InvalidJobError,
// UnknownCircuitError), UNIMPLEMENTED, NOT_FOUND (JobNotFoundError),
// ALREADY_EXISTS (DuplicateRequestError), FAILED_PRECONDITION
// (SrsUnavailableError, SrsInUseError), UNAVAILABLE (prover::ShuttingDownError), RESOURCE_EXHAUSTED
// (memory::BudgetExceededError: a job that can never fit the budget; std::bad_alloc), INTERNAL otherwise.
grpc::Status ToGrpcStatus(std::exception_ptr error);
// "INVALID_ARGUMENT" etc., for logs and metrics labels.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace cuzk::daemon
