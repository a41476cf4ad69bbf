#pragma once
// The bearer-token check of every gRPC call, as gRPC's AuthMetadataProcessor:
// it runs in the transport before the call reaches ProvingService, so no
// handler (and no handler added later) can forget it. A call without
// `authorization: Bearer <token>`, or with another token, ends with
// UNAUTHENTICATED; the header is consumed, so the service never sees (or
// logs) the token.
//
//   auto creds = grpc::SslServerCredentials(options);
//   creds->SetAuthMetadataProcessor(std::make_shared<BearerTokenProcessor>(token));
//
// gRPC calls a processor only on "secure" credentials (TLS, or local
// credentials on a unix socket), never on InsecureServerCredentials: see
// ServerCredentialsFor in daemon/tls_credentials.hpp.
#include <grpcpp/security/auth_metadata_processor.h>

#include <string>

namespace cuzk::daemon {

class BearerTokenProcessor final : public grpc::AuthMetadataProcessor {
 public:
  explicit BearerTokenProcessor(std::string token) : token_(std::move(token)) {}

  // A comparison of a few dozen bytes: cheap enough to run on the transport
  // thread, so no thread hop per call.
  bool IsBlocking() const override { return false; }

  grpc::Status Process(const InputMetadata& auth_metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata, OutputMetadata* response_metadata) override;

 private:
  const std::string token_;
};

}  // namespace cuzk::daemon
