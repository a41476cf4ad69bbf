#pragma once
// The credentials of the gRPC listener: TLS (optionally mutual) on TCP,
// plaintext on a unix socket, and the bearer-token check on either.
//
//   auto creds = ServerCredentialsFor(listen, config.tls, token);   // throws naming the file at fault
//   builder.AddListeningPort(listen.GrpcTarget(), creds, &port);
//
// The PEM files are read and checked here, before gRPC sees them: gRPC
// itself only fails the first handshake (and logs a line no operator
// connects to the config), so a wrong path or a key of another certificate
// would leave a daemon that runs and serves no one.
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <optional>
#include <string>

#include "daemon/config.hpp"
#include "daemon/listen_address.hpp"

namespace cuzk::daemon {

// The PEM text of [tls], checked: cert_file holds at least one certificate,
// key_file a private key that belongs to its first one, client_ca_file (if
// set) at least one certificate. std::runtime_error naming the key and file.
struct TlsFiles {
  std::string cert_chain, private_key, client_ca;  // client_ca "" = no mutual TLS
};
TlsFiles LoadTlsFiles(const Config::Tls& tls);

// True if any [tls] key is set.
bool TlsConfigured(const Config::Tls& tls);

// unix socket: plaintext ([tls] is ignored with a warning); with a token,
//   gRPC's local credentials, the only plaintext kind that runs a processor.
// TCP: TLS if configured; a token without TLS on TCP is refused (it would
//   cross the network in clear).
// token: nullopt = no token check.
std::shared_ptr<grpc::ServerCredentials> ServerCredentialsFor(const ListenAddress& listen, const Config::Tls& tls,
                                                              const std::optional<std::string>& token);

}  // namespace cuzk::daemon
