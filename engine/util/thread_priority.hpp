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
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
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

namespace internal {
// What a call of f returned or threw, kept by the thread that ran it for the
// thread that waits for it (after a join, which orders the two).
template <class F>
class Outcome {
 public:
  using R = std::invoke_result_t<F&>;
  void Run(F& f) noexcept {
    try {
      if constexpr (std::is_void_v<R>) {
        f();
      } else {
        result_.emplace(f());
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  R Take() {
    if (error_) std::rethrow_exception(error_);
    if constexpr (!std::is_void_v<R>) return std::move(*result_);
  }

 private:
  std::exception_ptr error_;
  std::conditional_t<std::is_void_v<R>, bool, std::optional<R>> result_{};
};
}  // namespace internal

// f() on a new thread whose priority is `steps` nice levels lower, waited
// for: its result returned, its exception rethrown here.
template <class F>
auto RunAtLowPriority(int steps, F&& f) -> std::invoke_result_t<F&> {
  internal::Outcome<std::remove_reference_t<F>> outcome;
  std::thread worker([&] {
    LowerThisThreadPriority(steps);
    outcome.Run(f);
  });
  worker.join();
  return outcome.Take();
}

// Threads at the priority of whoever made the launcher. A lowered thread
// cannot raise itself or make a thread above itself (nice values are
// inherited and an unprivileged thread cannot take them back), so work that
// must not run at its caller's low priority asks a launcher made earlier at
// normal priority: its one thread makes the threads, the caller waits.
// SrsRegistry loads a set through it, since a job's first partition asks for
// the set from a synthesis thread (PipelineConfig::synthesis_nice) and the
// load, with its 16 reading threads, is the first proof's critical path.
class ThreadLauncher {
 public:
  ThreadLauncher() : nice_(ThisThreadNice()), launcher_([this] { Serve(); }) {}
  ~ThreadLauncher() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    launcher_.join();
  }
  ThreadLauncher(const ThreadLauncher&) = delete;
  ThreadLauncher& operator=(const ThreadLauncher&) = delete;

  // The nice value of the threads it makes.
  int nice() const { return nice_; }

  // f() on a new thread made at nice(), waited for: its result returned, its
  // exception rethrown here. Called from a thread at nice() or above (less
  // urgent) it is the same as a thread of its own. When no thread can be
  // made (the system refuses one), f() runs on the caller's thread, at the
  // caller's priority, rather than failing the work.
  template <class F>
  auto Run(F&& f) -> std::invoke_result_t<F&> {
    internal::Outcome<std::remove_reference_t<F>> outcome;
    const std::function<void()> body = [&] { outcome.Run(f); };
    std::thread worker;
    try {
      worker = Launch(body);
    } catch (const std::system_error&) {
      body();  // no thread to be had: here, at this thread's priority
    }
    if (worker.joinable()) worker.join();
    return outcome.Take();
  }

 private:
  // Shared by the caller and the launcher's thread: the caller may return
  // (its future ready) while set_value is still finishing on the other side.
  struct Request {
    std::function<void()> body;
    std::promise<std::thread> made;
  };

  // A thread made by the launcher's thread (so at its priority) running body.
  // A refused thread creation comes back as its std::system_error; a
  // launcher being destroyed refuses with std::logic_error.
  std::thread Launch(const std::function<void()>& body) {
    auto request = std::make_shared<Request>();
    request->body = body;
    std::future<std::thread> made = request->made.get_future();
    {
      std::lock_guard lock(mu_);
      if (stop_) throw std::logic_error("ThreadLauncher: used while being destroyed");
      queue_.push_back(request);
    }
    cv_.notify_all();
    return made.get();
  }

  void Serve() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing pending
      std::shared_ptr<Request> request = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      try {
        request->made.set_value(std::thread(std::move(request->body)));
      } catch (...) {
        request->made.set_exception(std::current_exception());
      }
      lock.lock();
    }
  }

  const int nice_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Request>> queue_;
  bool stop_ = false;
  std::thread launcher_;  // last: Serve uses the members above
};

}  // namespace cuzk::util
