#include "engine/util/thread_priority.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace cuzk::util {
namespace {

// PRIO_PROCESS with a thread id addresses that one thread on Linux.
id_t ThisThreadId() { return id_t(::syscall(SYS_gettid)); }

}  // namespace

int ThisThreadNice() {
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, ThisThreadId());
  return errno == 0 ? nice : 0;
}

bool LowerThisThreadPriority(int steps) {
  if (steps <= 0) return true;
  const int target = std::min(ThisThreadNice() + steps, 19);
  return ::setpriority(PRIO_PROCESS, ThisThreadId(), target) == 0;
}

}  // namespace cuzk::util
