#include "daemon/listen_address.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace cuzk::daemon {

std::string ListenAddress::GrpcTarget() const {
  if (is_unix) return "unix:" + path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

ListenAddress ParseListenAddress(std::string_view text, std::string_view key) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(std::string(key) + " = \"" + std::string(text) + "\": " + why);
  };
  ListenAddress a;
  if (text.starts_with("unix:")) {
    std::string_view rest = text.substr(5);
    if (rest.starts_with("//")) rest = rest.substr(2);  // unix:///abs -> /abs
    if (rest.empty()) throw bad("empty socket path");
    if (rest.size() >= sizeof(sockaddr_un{}.sun_path)) throw bad("socket path longer than 107 bytes");
    a.is_unix = true;
    a.path = std::string(rest);
    return a;
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) throw bad("expected unix://PATH or HOST:PORT");
  std::string_view host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.starts_with("[") && host.ends_with("]")) host = host.substr(1, host.size() - 2);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    throw bad("port must be 0..65535");
  }
  a.host = std::string(host);
  a.port = uint16_t(value);
  return a;
}

void PrepareUnixSocketPath(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent);
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;  // nothing there
  if (!S_ISSOCK(st.st_mode)) throw std::runtime_error(path + " exists and is not a socket: not removing it");
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  const bool live = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  if (live) throw std::runtime_error(path + ": another process is accepting on this socket (a daemon running?)");
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    throw std::runtime_error("cannot remove stale socket " + path + ": " + std::strerror(errno));
  }
}

}  // namespace cuzk::daemon
