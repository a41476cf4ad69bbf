#pragma once
// Listen addresses: "unix:///run/curio/cuzk.sock" (also "unix:relative/path")
// or "HOST:PORT" ("0.0.0.0:9820", "[::1]:9820", "localhost:0").
//
//   ListenAddress a = ParseListenAddress("unix:///run/cuzk.sock", "daemon.listen");
//   PrepareUnixSocketPath(a.path);   // parent created, stale socket removed
//   std::string target = a.GrpcTarget();
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cuzk::daemon {

struct ListenAddress {
  bool is_unix = false;
  std::string path;  // unix
  std::string host;  // tcp (brackets stripped)
  uint16_t port = 0;
  std::string GrpcTarget() const;  // "unix:PATH" or "HOST:PORT"
};

// std::invalid_argument naming `key` and the text.
ListenAddress ParseListenAddress(std::string_view text, std::string_view key);

// Creates the parent directory; removes a stale socket (nobody accepting on
// it). Throws std::runtime_error if a live daemon holds it or the path is
// not a socket (never deletes a regular file).
void PrepareUnixSocketPath(const std::string& path);

}  // namespace cuzk::daemon
