#pragma once
// The SynthesisQueue and the GpuQueue: partitions ordered by priority (most
// urgent first), then job age (submission order), then partition index. Both
// are this one container over different payloads; they are not thread-safe
// (the pipeline guards them with its lock, the simulator is single-threaded).
//
//   SynthesisQueue<Pending> q;
//   q.Push({Priority::kNormal, job_seq, partition}, std::move(item));
//   auto [key, item] = q.Pop();   // the most urgent
//   q.RemoveJob(job_seq);         // a failed or cancelled job's partitions, handed back to be dropped
#include <cstdint>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "scheduler/priority.hpp"

namespace cuzk::scheduler {

struct PartitionKey {
  Priority priority = Priority::kNormal;
  uint64_t job_seq = 0;  // submission order of the job: lower is older
  uint32_t partition = 0;

  // "a < b" means a goes first.
  friend bool operator<(const PartitionKey& a, const PartitionKey& b) {
    return std::make_tuple(-int(a.priority), a.job_seq, a.partition) <
           std::make_tuple(-int(b.priority), b.job_seq, b.partition);
  }
  friend bool operator==(const PartitionKey&, const PartitionKey&) = default;
};

template <typename T>
class PartitionQueue {
 public:
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }

  // A key may be queued once.
  void Push(const PartitionKey& key, T item) {
    if (!items_.emplace(key, std::move(item)).second) throw std::logic_error("partition queued twice");
  }
  const PartitionKey& TopKey() const { return items_.begin()->first; }
  T& Top() { return items_.begin()->second; }
  std::pair<PartitionKey, T> Pop() {
    auto node = items_.extract(items_.begin());
    return {node.key(), std::move(node.mapped())};
  }
  // Removes and returns the entries of one job (to be destroyed by the
  // caller, outside any lock: they may own large buffers).
  std::vector<std::pair<PartitionKey, T>> RemoveJob(uint64_t job_seq) {
    std::vector<std::pair<PartitionKey, T>> out;
    for (auto it = items_.begin(); it != items_.end();) {
      if (it->first.job_seq == job_seq) {
        auto node = items_.extract(it++);
        out.emplace_back(node.key(), std::move(node.mapped()));
      } else {
        ++it;
      }
    }
    return out;
  }
  template <typename F>
  void ForEach(F&& f) const {
    for (auto& [k, v] : items_) f(k, v);
  }

 private:
  std::map<PartitionKey, T> items_;
};

template <typename T>
using SynthesisQueue = PartitionQueue<T>;
template <typename T>
using GpuQueue = PartitionQueue<T>;

}  // namespace cuzk::scheduler
