#include "daemon/rpc_pool.hpp"

#include <spdlog/spdlog.h>

namespace cuzk::daemon {

RpcPool::RpcPool(uint32_t threads) {
  for (uint32_t i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { Loop(); });
}

RpcPool::~RpcPool() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void RpcPool::Post(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(work));
}

void RpcPool::Loop() {
  for (;;) {
    std::function<void()> work;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &RpcPool::Ready));
      if (queue_.empty()) return;  // stop_, and nothing left to answer
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      work();
    } catch (const std::exception& e) {
      spdlog::error("rpc pool: a call's work threw: {}", e.what());  // a bug: every body answers its own errors
    }
  }
}

}  // namespace cuzk::daemon
