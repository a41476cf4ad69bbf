#include "daemon/socket_permissions.hpp"

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace cuzk::daemon {
namespace {

std::optional<gid_t> LookUpGroup(const std::string& name) {
  gid_t numeric = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), numeric);
  if (ec == std::errc() && end == name.data() + name.size()) return numeric;
  group g{};
  group* found = nullptr;
  std::vector<char> buf(16384);
  for (;;) {
    const int rc = getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 20)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    if (rc != 0 || !found) return std::nullopt;
    return found->gr_gid;
  }
}

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode));
  return buf;
}

}  // namespace

SocketPermissions ResolveSocketPermissions(mode_t mode, const std::string& group) {
  SocketPermissions p;
  p.mode = mode;
  p.group_name = group;
  if (!group.empty()) {
    p.group = LookUpGroup(group);
    if (!p.group) throw std::runtime_error("daemon.socket_group = \"" + group + "\": no such group on this host");
  }
  return p;
}

ScopedSocketUmask::ScopedSocketUmask(const SocketPermissions& p)
    : old_(umask(p.group ? mode_t(0177) : mode_t(~p.mode & 0777))) {}

ScopedSocketUmask::~ScopedSocketUmask() { umask(old_); }

void ApplySocketPermissions(const std::string& path, const SocketPermissions& p) {
  if (p.group && chown(path.c_str(), uid_t(-1), *p.group) != 0) {
    throw std::runtime_error("daemon.socket_group = \"" + p.group_name + "\": cannot give " + path +
                             " to that group (" + std::strerror(errno) + "; the daemon's user must be a member)");
  }
  if (chmod(path.c_str(), p.mode) != 0) {
    throw std::runtime_error("daemon.socket_mode " + Octal(p.mode) + ": chmod " + path + ": " + std::strerror(errno));
  }
}

}  // namespace cuzk::daemon
