#pragma once
// A small HTTP/1.1 server for daemon.status_listen: GET /status (JSON) and
// GET /metrics (Prometheus text). One thread, one connection at a time,
// "Connection: close". Built for operators and scrapers, hardened against
// anything else: requests over 8 KiB (431), reads slower than 2 s (dropped),
// bad request lines (400), other methods (405) and paths (404) never reach a
// handler, and no input can throw out of the loop.
//
//   HttpServer http(ParseListenAddress("127.0.0.1:9821", "daemon.status_listen"),
//                   {{"/status", "application/json", [&] { return core.StatusJson(); }}});
//   uint16_t port = http.port();   // the bound port (listen on :0 picks one)
#include <atomic>
#include <functional>
#include <string>
#include <thread>
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
  // Binds and starts serving; std::runtime_error if it cannot bind.
  HttpServer(const ListenAddress& address, std::vector<Route> routes);
  ~HttpServer();  // stops and joins
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }
  void Stop();

 private:
  void Loop();
  void Serve(int fd);

  std::vector<Route> routes_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::string unix_path_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace cuzk::daemon
