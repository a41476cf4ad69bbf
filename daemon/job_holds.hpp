#pragma once
// JobHolds: who still wants a job's result, so that a Prove whose client
// hangs up can cancel its job unless someone else still holds it (issue 19:
// a client that hung up on Prove left its job running, GPU time for nothing).
// A hold is a waiting AwaitProof or Prove call; a SubmitProof also marks the
// job as wanted for good (its client comes back with AwaitProof later).
//
//   holds.Hold(id);                                  // a call starts waiting
//   if (holds.Release(id) && client_left) Cancel(id);  // the last one leaves
//
// Leaf lock; O(log n) per call. The SubmitProof marks are the most recent
// kMaxSubmitted job ids (a job older than that has long ended or been
// awaited; at ~300 bytes an id the list stays under 3 MB).
#include <cstddef>
#include <deque>
#include <map>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace cuzk::daemon {

class JobHolds {
 public:
  static constexpr size_t kMaxSubmitted = 8192;

  void Hold(const std::string& job_id);
  // Ends one hold. True when it was the last and no SubmitProof named the
  // job: nobody else wants its result.
  bool Release(const std::string& job_id);
  // A SubmitProof returned this job id.
  void MarkSubmitted(const std::string& job_id);
  size_t holds(const std::string& job_id) const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, size_t> holds_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> submitted_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> submitted_order_ ABSL_GUARDED_BY(mu_);  // oldest first
};

}  // namespace cuzk::daemon
