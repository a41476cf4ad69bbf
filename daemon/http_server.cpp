#include "daemon/http_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>

namespace cuzk::daemon {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
constexpr int kReadTimeoutMs = 2000;

std::string Response(int code, const char* reason, const std::string& type, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away
    done += size_t(n);
  }
}

int BindTcp(const ListenAddress& a, uint16_t* bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(a.port);
  if (int rc = getaddrinfo(a.host.empty() ? nullptr : a.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    throw std::runtime_error("status_listen " + a.host + ": " + gai_strerror(rc));
  }
  int fd = -1;
  std::string error = "no address";
  for (addrinfo* p = res; p; p = p->ai_next) {
    fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, p->ai_addr, p->ai_addrlen) == 0 && listen(fd, 64) == 0) break;
    error = std::strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) throw std::runtime_error("status_listen " + a.GrpcTarget() + ": " + error);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  *bound_port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return fd;
}

int BindUnix(const std::string& path) {
  PrepareUnixSocketPath(path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 64) != 0) {
    const std::string error = std::strerror(errno);
    if (fd >= 0) close(fd);
    throw std::runtime_error("status_listen unix:" + path + ": " + error);
  }
  chmod(path.c_str(), 0660);
  return fd;
}

}  // namespace

HttpServer::HttpServer(const ListenAddress& address, std::vector<Route> routes) : routes_(std::move(routes)) {
  if (address.is_unix) {
    listen_fd_ = BindUnix(address.path);
    unix_path_ = address.path;
  } else {
    listen_fd_ = BindTcp(address, &port_);
  }
  if (pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    close(listen_fd_);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  thread_ = std::thread([this] { Loop(); });
}

HttpServer::~HttpServer() {
  Stop();
  close(listen_fd_);
  close(wake_pipe_[0]);
  close(wake_pipe_[1]);
  if (!unix_path_.empty()) unlink(unix_path_.c_str());
}

void HttpServer::Stop() {
  if (stop_.exchange(true)) return;
  const char byte = 1;
  (void)!write(wake_pipe_[1], &byte, 1);
  if (thread_.joinable()) thread_.join();
}

void HttpServer::Loop() {
  while (!stop_.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("status endpoint: poll: {}", std::strerror(errno));
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    try {
      Serve(fd);
    } catch (const std::exception& e) {
      spdlog::warn("status endpoint: {}", e.what());
    }
    close(fd);
  }
}

void HttpServer::Serve(int fd) {
  std::string req;
  char buf[2048];
  while (req.find("\r\n\r\n") == std::string::npos) {
    if (req.size() > kMaxRequestBytes) {
      WriteAll(fd, Response(431, "Request Header Fields Too Large", "text/plain", "request too large\n"));
      return;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kReadTimeoutMs) <= 0) return;  // slow or silent client: dropped
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (req.empty()) return;
      break;  // the client closed its side: answer what we have
    }
    req.append(buf, size_t(n));
  }
  // Request line: METHOD SP TARGET SP HTTP/1.x
  const size_t eol = req.find("\r\n");
  const std::string line = req.substr(0, eol == std::string::npos ? req.size() : eol);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos || sp2 == std::string::npos || line.find(' ', sp2 + 1) != std::string::npos ||
      !line.substr(sp2 + 1).starts_with("HTTP/1.")) {
    WriteAll(fd, Response(400, "Bad Request", "text/plain", "malformed request line\n"));
    return;
  }
  const std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (size_t q = target.find('?'); q != std::string::npos) target.resize(q);
  for (const Route& r : routes_) {
    if (r.path != target) continue;
    if (method != "GET" && method != "HEAD") {
      WriteAll(fd, Response(405, "Method Not Allowed", "text/plain", "only GET\n"));
      return;
    }
    std::string body = r.body();
    std::string resp = Response(200, "OK", r.content_type, body);
    if (method == "HEAD") resp.resize(resp.size() - body.size());
    WriteAll(fd, resp);
    return;
  }
  std::string paths;
  for (const Route& r : routes_) paths += r.path + "\n";
  WriteAll(fd, Response(404, "Not Found", "text/plain", "not found; try:\n" + paths));
}

}  // namespace cuzk::daemon
