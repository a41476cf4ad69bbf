#include "daemon/job_holds.hpp"

namespace cuzk::daemon {

void JobHolds::Hold(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  ++holds_[job_id];
}

bool JobHolds::Release(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  auto it = holds_.find(job_id);
  if (it == holds_.end()) return false;  // not held (a bug upstream): never a reason to cancel
  if (--it->second > 0) return false;
  holds_.erase(it);
  return submitted_.count(job_id) == 0;
}

void JobHolds::MarkSubmitted(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  if (!submitted_.insert(job_id).second) return;
  submitted_order_.push_back(job_id);
  if (submitted_order_.size() > kMaxSubmitted) {
    submitted_.erase(submitted_order_.front());
    submitted_order_.pop_front();
  }
}

size_t JobHolds::holds(const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  auto it = holds_.find(job_id);
  return it == holds_.end() ? 0 : it->second;
}

}  // namespace cuzk::daemon
