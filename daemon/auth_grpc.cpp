#include "daemon/auth_grpc.hpp"

#include "daemon/auth_token.hpp"

namespace cuzk::daemon {

grpc::Status BearerTokenProcessor::Process(const InputMetadata& auth_metadata, grpc::AuthContext* /*context*/,
                                           OutputMetadata* consumed_auth_metadata,
                                           OutputMetadata* /*response_metadata*/) {
  // Metadata keys arrive lower-case (HTTP/2). More than one authorization
  // header is refused rather than guessing which one counts.
  const auto [first, last] = auth_metadata.equal_range("authorization");
  if (first == last) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this daemon requires a token: send metadata \"authorization: Bearer <token>\"");
  }
  if (std::next(first) != last) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "more than one authorization header");
  }
  const std::string_view value(first->second.data(), first->second.size());
  if (!BearerMatches(value, token_)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "wrong token (expected \"authorization: Bearer <token>\")");
  }
  consumed_auth_metadata->emplace("authorization", std::string(value));
  return grpc::Status::OK;
}

}  // namespace cuzk::daemon
