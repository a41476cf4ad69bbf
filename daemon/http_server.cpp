#include "daemon/http_server.hpp"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "daemon/auth_token.hpp"
#include "daemon/http_connection_pool.hpp"
#include "daemon/http_deadline_stream.hpp"

namespace cuzk::daemon {
namespace {

using httplib::Request;
using httplib::Response;
using Outcome = httplib::Server::HandlerResponse;

constexpr char kTooManyClients[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 17\r\n"
    "Connection: close\r\n\r\ntoo many clients\n";

// SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a
// second daemon on the same status port would start and take half the
// scrapes (hostile-client finding 1, for HTTP).
void ReuseAddressOnly(int sock) {
  int one = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
}

void Text(Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "text/plain");
}

}  // namespace

class HttpServer::Server final : public httplib::Server {
 public:
  Server(std::vector<Route> routes, std::optional<std::string> token)
      : routes_(std::move(routes)), token_(std::move(token)) {
    new_task_queue = [] { return new ConnectionPool(kThreads, kMaxConnections); };
    set_socket_options([this](int sock) {
      ReuseAddressOnly(sock);
      listen_fd_ = sock;
    });
    // Also applied by httplib to each accepted socket (SO_RCVTIMEO/SNDTIMEO):
    // a second bound beside the stream's deadline.
    set_read_timeout(kRequestDeadline);
    set_write_timeout(kRequestDeadline);
    set_pre_routing_handler([this](const Request& req, Response& res) { return Guard(req, res); });
    set_error_handler(HandlerWithResponse([this](const Request& req, Response& res) { return NotFound(req, res); }));
    set_exception_handler([](const Request& req, Response& res, std::exception_ptr ep) { Failed(req, res, ep); });
    Get(kLivenessPath, [](const Request&, Response& res) { Text(res, 200, "ok\n"); });
    for (const Route& r : routes_) {
      Get(r.path, [&r](const Request&, Response& res) { res.set_content(r.body(), r.content_type.c_str()); });
    }
  }

  // Binds (port 0: any free one) and starts the accepting thread.
  uint16_t Start(const std::string& host, uint16_t port) {
    const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
    if (bound <= 0) {
      throw std::runtime_error("status_listen " + host + ":" + std::to_string(port) +
                               ": cannot bind it (in use, or not an address of this host)");
    }
    // httplib listens with a backlog of 5: a burst of scrapers beyond it has
    // its SYNs dropped and retried after 1 s. Linux lets listen() be called
    // again to raise the backlog of the bound socket.
    if (listen_fd_ >= 0) ::listen(listen_fd_, int(kMaxConnections));
    thread_ = std::thread([this] {
      listen_after_bind();
      listen_returned_ = true;
    });
    // stop() is a no-op until the loop runs: wait for it, or Stop() could hang.
    while (!is_running() && !listen_returned_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return uint16_t(bound);
  }

  void StopAndJoin() {
    // Closes the listening socket; the pool finishes the connections it is
    // serving (each within the deadline) and closes the waiting ones.
    stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  // httplib calls this (a private virtual of its Server) for each accepted
  // connection, on a ConnectionPool thread: the same as its own, with the
  // deadline stream in place of its SocketStream and one request per
  // connection.
  bool process_and_close_socket(int sock) override {
    if (ConnectionPool::Rejecting()) {
      (void)!send(sock, kTooManyClients, sizeof kTooManyClients - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    } else {
      Serve(sock);
    }
    shutdown(sock, SHUT_RDWR);
    close(sock);
    return true;
  }

  // One request; nothing a client sends may end the thread (a throw here
  // would reach the pool's thread and terminate the daemon).
  void Serve(int sock) {
    try {
      DeadlineStream stream(sock, std::chrono::steady_clock::now() + kRequestDeadline, kMaxRequestBytes);
      bool closed = false;
      process_request(stream, /*close_connection=*/true, closed, nullptr);
    } catch (const std::exception& e) {
      spdlog::warn("status endpoint: connection dropped: {}", e.what());
    }
  }

  bool IsRoute(const std::string& path) const {
    if (path == kLivenessPath) return true;
    for (const Route& r : routes_) {
      if (r.path == path) return true;
    }
    return false;
  }

  // Before routing: the token (everything but liveness, unknown paths too:
  // the route list is not shown to a client without it), then the method.
  Outcome Guard(const Request& req, Response& res) const {
    if (token_ && req.path != kLivenessPath && !BearerMatches(req.get_header_value("Authorization"), *token_)) {
      res.set_header("WWW-Authenticate", "Bearer");
      Text(res, 401, "missing or wrong token: send \"Authorization: Bearer <token>\"\n");
      return Outcome::Handled;
    }
    if (IsRoute(req.path) && req.method != "GET" && req.method != "HEAD") {
      Text(res, 405, "only GET\n");
      return Outcome::Handled;
    }
    return Outcome::Unhandled;
  }

  Outcome NotFound(const Request&, Response& res) const {
    if (res.status != 404 || !res.body.empty()) return Outcome::Unhandled;
    std::string paths;
    for (const Route& r : routes_) paths += r.path + "\n";
    Text(res, 404, "not found; try:\n" + paths + kLivenessPath + "\n");
    return Outcome::Handled;
  }

  // A route's body threw: 500 with a fixed text (httplib's default would put
  // the exception's text in a response header).
  static void Failed(const Request& req, Response& res, std::exception_ptr ep) {
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      spdlog::warn("status endpoint {}: {}", req.path, e.what());
    } catch (...) {
      spdlog::warn("status endpoint {}: unknown exception", req.path);
    }
    Text(res, 500, "internal error (see the daemon's log)\n");
  }

  const std::vector<Route> routes_;
  const std::optional<std::string> token_;
  int listen_fd_ = -1;  // httplib's listening socket, seen by the socket-options callback
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

HttpServer::HttpServer(const ListenAddress& address, std::vector<Route> routes, std::optional<std::string> token)
    : server_(std::make_unique<Server>(std::move(routes), std::move(token))) {
  if (address.is_unix) {
    throw std::invalid_argument("status_listen unix:" + address.path +
                                ": the HTTP endpoint listens on TCP only (HOST:PORT, e.g. 127.0.0.1:9821)");
  }
  host_ = address.host.empty() ? "127.0.0.1" : address.host;
  port_ = server_->Start(host_, address.port);
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Stop() { server_->StopAndJoin(); }

}  // namespace cuzk::daemon
