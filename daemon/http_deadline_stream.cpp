#include "daemon/http_deadline_stream.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace cuzk::daemon {
namespace {

using Clock = std::chrono::steady_clock;

void IpAndPort(const sockaddr_storage& ss, std::string& ip, int& port) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    port = ntohs(a->sin6_port);
  }
  ip = buf;
}

}  // namespace

bool DeadlineStream::WaitFor(short events) const {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{sock_, events, 0};
    const int n = poll(&p, 1, int(std::min<int64_t>(left, INT32_MAX)));
    if (n < 0 && errno == EINTR) continue;
    return n > 0;  // ready, or an error/hang-up the next recv/send reports
  }
}

bool DeadlineStream::is_readable() const { return WaitFor(POLLIN); }

bool DeadlineStream::is_writable() const { return WaitFor(POLLOUT); }

ssize_t DeadlineStream::read(char* ptr, size_t size) {
  if (read_left_ == 0 || !WaitFor(POLLIN)) return -1;  // too much, or too slow: the connection is dropped
  for (;;) {
    const ssize_t n = recv(sock_, ptr, std::min(size, read_left_), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) read_left_ -= size_t(n);
    return n;
  }
}

// Non-blocking sends: a blocking one could wait past the deadline for a
// client that does not read (httplib loops over partial writes).
ssize_t DeadlineStream::write(const char* ptr, size_t size) {
  for (;;) {
    if (!WaitFor(POLLOUT)) return -1;
    const ssize_t n = send(sock_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    return n;
  }
}

void DeadlineStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(sock_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) IpAndPort(ss, ip, port);
}

void DeadlineStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(sock_, reinterpret_cast<sockaddr*>(&ss), &len) == 0) IpAndPort(ss, ip, port);
}

}  // namespace cuzk::daemon
