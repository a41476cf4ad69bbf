#pragma once
// The HTTP/1.1 endpoint of daemon.status_listen on cpp-httplib (Debian's
// libcpp-httplib): GET /status (JSON), GET /metrics (Prometheus text) and
// GET /healthz (liveness: "ok", never behind the token). One request per
// connection ("Connection: close"), served by a pool of threads:
// - up to kThreads connections at once, kMaxConnections served + waiting
//   (beyond: 503 and closed at once);
// - each connection has kRequestDeadline for the whole exchange and may send
//   kMaxRequestBytes at most (a slow or silent client is dropped, and holds
//   one thread for that long at most; a few idle or trickling clients leave
//   the other threads to /status and /metrics);
// - with a token, every path but /healthz needs "Authorization: Bearer
//   <token>" (401 otherwise, before routing: unknown paths too);
// - other methods on a route get 405, unknown paths 404 with the route list.
//
//   HttpServer http(ParseListenAddress("127.0.0.1:9821", "daemon.status_listen"),
//                   {{"/status", "application/json", [&] { return StatusJson(core); }}}, token);
//   uint16_t port = http.port();   // the bound port (listen on :0 picks one)
//
// TCP only (httplib 0.11 cannot listen on a unix socket); an empty host
// binds 127.0.0.1, never every interface.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/listen_address.hpp"

namespace cuzk::daemon {

class HttpServer {
 public:
  struct Route {
    std::string path;
    std::string content_type;
    std::function<std::string()> body;
  };
  static constexpr size_t kThreads = 16;
  static constexpr size_t kMaxConnections = 128;
  static constexpr std::chrono::seconds kRequestDeadline{3};
  static constexpr size_t kMaxRequestBytes = 16384;
  static constexpr const char* kLivenessPath = "/healthz";

  // Binds and starts serving; std::runtime_error if it cannot bind (the port
  // is taken: SO_REUSEPORT is off), std::invalid_argument for a unix address.
  // token: nullopt = no Authorization needed.
  HttpServer(const ListenAddress& address, std::vector<Route> routes, std::optional<std::string> token = std::nullopt);
  ~HttpServer();  // stops and joins
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }
  const std::string& host() const { return host_; }  // the bound host ("127.0.0.1" for an empty one)
  void Stop();

 private:
  class Server;  // httplib::Server with the deadline stream (http_server.cpp)
  std::unique_ptr<Server> server_;
  std::string host_;
  uint16_t port_ = 0;
};

}  // namespace cuzk::daemon
