#include "cuda/groth16/witness_landing.hpp"

#include <stdexcept>
#include <utility>

namespace cuzk::cuda {

bool WitnessLanding::Defer(Task task) {
  std::lock_guard lock(mu_);
  switch (state_) {
    case State::kStreaming: queue_.push_back(std::move(task)); return true;
    case State::kLanded: return false;
    case State::kFailed: std::rethrow_exception(error_);
  }
  return false;
}

void WitnessLanding::RunOrFail(Task& task) {
  try {
    task.run();
  } catch (...) {
    try {
      if (task.fail) task.fail(std::current_exception());
    } catch (...) {
      // the waiter's callback failing must not end the landing (nor the process)
    }
  }
}

size_t WitnessLanding::Land() {
  std::vector<Task> queued;
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kStreaming) throw std::logic_error("WitnessLanding: Land after Land or Fail");
    state_ = State::kLanded;
    queued.swap(queue_);
  }
  for (Task& task : queued) {
    bool skip = false;
    try {
      skip = task.cancelled && task.cancelled();
    } catch (...) {
      skip = false;  // an unanswerable question: the work runs
    }
    if (!skip) {
      RunOrFail(task);
      continue;
    }
    try {
      if (task.fail) task.fail(std::make_exception_ptr(CancelledBeforeLanding()));
    } catch (...) {
      // as in RunOrFail: the waiter's callback failing must not end the landing
    }
  }
  Finish();
  return queued.size();
}

size_t WitnessLanding::Fail(std::exception_ptr error) {
  if (!error) throw std::invalid_argument("WitnessLanding: Fail without an error");
  std::vector<Task> queued;
  {
    std::lock_guard lock(mu_);
    if (state_ != State::kStreaming) throw std::logic_error("WitnessLanding: Fail after Land or Fail");
    state_ = State::kFailed;
    error_ = error;
    queued.swap(queue_);
  }
  for (Task& task : queued) {
    try {
      if (task.fail) task.fail(error);
    } catch (...) {
      // one waiter's callback failing must not leave the others untold
    }
  }
  Finish();
  return queued.size();
}

void WitnessLanding::Finish() {
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  done_cv_.notify_all();
}

void WitnessLanding::Wait() const {
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return done_; });
}

WitnessLanding::State WitnessLanding::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

std::exception_ptr WitnessLanding::error() const {
  std::lock_guard lock(mu_);
  return error_;
}

size_t WitnessLanding::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace cuzk::cuda
