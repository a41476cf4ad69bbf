#include "daemon/errors.hpp"

#include <new>

#include "memory/budget.hpp"
#include "prover/prover.hpp"

namespace cuzk::daemon {

using namespace prover;  // the error types the prover throws

grpc::Status ToGrpcStatus(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const InvalidRequestError& e) {
    return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const InvalidJobError& e) {
    return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const UnknownCircuitError& e) {
    return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const UnimplementedError& e) {
    return {grpc::StatusCode::UNIMPLEMENTED, e.what()};
  } catch (const JobNotFoundError& e) {
    return {grpc::StatusCode::NOT_FOUND, e.what()};
  } catch (const DuplicateRequestError& e) {
    return {grpc::StatusCode::ALREADY_EXISTS, e.what()};
  } catch (const SrsUnavailableError& e) {
    return {grpc::StatusCode::FAILED_PRECONDITION, e.what()};
  } catch (const SrsInUseError& e) {
    return {grpc::StatusCode::FAILED_PRECONDITION, e.what()};
  } catch (const ShuttingDownError& e) {
    return {grpc::StatusCode::UNAVAILABLE, e.what()};
  } catch (const memory::BudgetExceededError& e) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, e.what()};  // a job that can never fit the memory budget
  } catch (const std::bad_alloc&) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory"};
  } catch (const std::exception& e) {
    return {grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()};
  } catch (...) {
    return {grpc::StatusCode::INTERNAL, "internal error"};
  }
}

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNKNOWN";
  }
}

}  // namespace cuzk::daemon
