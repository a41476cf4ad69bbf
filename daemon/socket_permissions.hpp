#pragma once
// Who may connect to the daemon's unix socket: its mode and group
// ([daemon] socket_mode, socket_group), set with no moment at which the
// socket is open to more than the final mode allows.
//
//   SocketPermissions p = ResolveSocketPermissions(0660, "cuzk");   // throws for an unknown group
//   {
//     ScopedSocketUmask umask(p);   // the socket is born owner-only (or with its final mode)
//     server = builder.BuildAndStart();
//   }
//   ApplySocketPermissions(path, p);   // chown to the group, then chmod to the mode
//
// Why the order: bind() creates the socket with 0777 & ~umask. With a group
// to set, it is born 0600 (only the daemon's user), then given the group,
// then the mode; without one it is born with its final mode. At no point
// can a user outside owner + final group connect.
#include <sys/types.h>

#include <optional>
#include <string>

namespace cuzk::daemon {

struct SocketPermissions {
  mode_t mode = 0660;
  std::optional<gid_t> group;  // nullopt = the group the socket is born with
  std::string group_name;      // for messages
};

// group: a group name or a numeric gid; "" = none. std::runtime_error
// naming daemon.socket_group if no such group exists.
SocketPermissions ResolveSocketPermissions(mode_t mode, const std::string& group);

// umask() is process-wide: held only around the bind (BuildAndStart), which
// creates no other file.
class ScopedSocketUmask {
 public:
  explicit ScopedSocketUmask(const SocketPermissions& p);
  ~ScopedSocketUmask();
  ScopedSocketUmask(const ScopedSocketUmask&) = delete;
  ScopedSocketUmask& operator=(const ScopedSocketUmask&) = delete;

 private:
  mode_t old_;
};

// std::runtime_error naming the path and the group or mode that failed
// (chown to a group this user is not in: EPERM).
void ApplySocketPermissions(const std::string& path, const SocketPermissions& p);

}  // namespace cuzk::daemon
