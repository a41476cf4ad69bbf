#pragma once
// Work that should take only the CPU time more urgent threads leave: a
// SnapDeals job's first witnesses and the compact circuit's upload run
// beside a parameter set's key stream (a 32 GiB load reads 37 GB through 16
// threads and is the first proof's critical path), and at the same priority
// they slowed it by 0.5-1 s (H200, 2026-12-03: 3.1-4.1 s against 2.5 s alone).
//
//   auto w = util::RunAtLowPriority(10, [&] { return ComputeWitness(...); });
//
// Linux nice values are per thread and inherited by the threads a thread
// starts (util::ParallelFor's workers), and an unprivileged thread cannot
// take a lowered priority back: so the work runs on a thread of its own.
// Header-only: the scheduler (which links no engine library) lowers its
// synthesis threads with it too (PipelineConfig::synthesis_nice).
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

namespace cuzk::util {

// The calling thread's nice value (PRIO_PROCESS with a thread id addresses
// that one thread on Linux).
inline int ThisThreadNice() {
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid)));
  return errno == 0 ? nice : 0;
}

// Lowers the calling thread's CPU priority by `steps` nice levels (to at most
// 19). Best effort: false when the OS refused (nothing changed). Not undone.
inline bool LowerThisThreadPriority(int steps) {
  if (steps <= 0) return true;
  const int target = std::min(ThisThreadNice() + steps, 19);
  return ::setpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid)), target) == 0;
}

// f() on a new thread whose priority is `steps` nice levels lower, waited
// for: its result returned, its exception rethrown here.
template <class F>
auto RunAtLowPriority(int steps, F&& f) -> std::invoke_result_t<F&> {
  using R = std::invoke_result_t<F&>;
  std::exception_ptr error;
  std::conditional_t<std::is_void_v<R>, bool, std::optional<R>> result{};
  std::thread worker([&] {
    LowerThisThreadPriority(steps);
    try {
      if constexpr (std::is_void_v<R>) {
        f();
      } else {
        result.emplace(f());
      }
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
  if constexpr (!std::is_void_v<R>) return std::move(*result);
}

}  // namespace cuzk::util
