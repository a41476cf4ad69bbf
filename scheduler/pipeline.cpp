// scheduler::Pipeline: construction, submission, cancellation, status and the
// dispatcher (pacer + budget in strict priority order). The stage loops are
// in pipeline_stages.cpp.
#include "scheduler/pipeline.hpp"

#include <algorithm>
#include <cmath>

#include "scheduler/dispatch_decision.hpp"
#include "scheduler/pipeline_impl.hpp"

namespace cuzk::scheduler {

memory::PinnedBuffer PartitionContext::LeaseAbcBuffer(size_t bytes) const {
  if (!pinned_pool || !reservation || !abc_left)
    throw std::logic_error("LeaseAbcBuffer: only during synthesis, in a pipeline with a PinnedPool");
  if (preleased && *preleased && preleased->capacity() >= bytes) return std::move(*preleased);
  const uint64_t take = std::min<uint64_t>(pinned_pool->RoundUp(bytes), *abc_left);
  *abc_left -= take;
  return pinned_pool->Lease(bytes, reservation->Split(take), BudgetPriority(priority));
}

Pipeline::Impl::Impl(PipelineConfig c, memory::Budget& b, memory::PinnedPool* p)
    : config(std::move(c)),
      budget(b),
      pinned(p),
      gpu_worker_count(unsigned(std::max<size_t>(1, config.gpu_devices.size())) *
                       std::max(1u, config.gpu_workers_per_device)),
      pacer(config.pacer, gpu_worker_count, 0) {}

void Pipeline::Impl::Flush(Deferred& d) {
  if (config.timeline)
    for (auto& l : d.lines) config.timeline(l);
  d.lines.clear();
  d.garbage.clear();  // stage data and reservations: freed here, outside the lock
  if (!d.holds.empty()) {
    absl::MutexLock lock(&mu);
    for (auto& job : d.holds) DropHoldLocked(*job, d);
  }
  d.holds.clear();
  d.works.clear();  // released jobs' work
  // Queued only now, after everything above is gone (another thread may be
  // draining): whoever hears on_released sees none of the job's bytes held.
  for (auto& fn : d.released) Notify(std::move(fn));
  d.released.clear();
  DrainNotifications();
}

void Pipeline::Impl::RetireLocked(WorkItem&& item, Deferred& d) {
  std::shared_ptr<ActiveJob> job = item.job;
  d.garbage.push_back(std::move(item));
  if (job) d.holds.push_back(std::move(job));
}

void Pipeline::Impl::DropHoldLocked(ActiveJob& job, Deferred& d) {
  --job.in_flight;
  ReleaseIfIdleLocked(job, d);
}

void Pipeline::Impl::ReleaseIfIdleLocked(ActiveJob& job, Deferred& d) {
  if (job.active || job.in_flight > 0 || job.released) return;
  job.released = true;
  d.works.push_back(std::move(job.work));
  if (job.on_released) d.released.push_back(std::move(job.on_released));
}

void Pipeline::Impl::Notify(std::function<void()> fn) {
  absl::MutexLock lock(&notify_mu);
  notifications.push_back(std::move(fn));
}

void Pipeline::Impl::DrainNotifications() {
  notify_mu.Lock();
  if (draining) {  // that thread delivers ours too, in order
    notify_mu.Unlock();
    return;
  }
  draining = true;
  while (!notifications.empty()) {
    std::function<void()> fn = std::move(notifications.front());
    notifications.pop_front();
    notify_mu.Unlock();
    fn();
    notify_mu.Lock();
  }
  draining = false;
  notify_mu.Unlock();
}

void Pipeline::Impl::SetStageLocked(ActiveJob& job, uint32_t partition, PartitionStage stage) {
  job.status[partition].stage = stage;
  if (job.on_stage) Notify([cb = job.on_stage, partition, status = job.status[partition]] { cb(partition, status); });
}

PartitionContext Pipeline::Impl::Context(WorkItem& item) const {
  PartitionContext c;
  c.job_id = item.job->id;
  c.partition = item.partition;
  c.partitions = item.job->partitions;
  c.priority = item.job->priority;
  c.cancel = item.job->cancel;
  return c;
}

void Pipeline::Impl::InterruptDispatchLocked() {
  if (dispatch_stop) dispatch_stop->request_stop();
}

void Pipeline::Impl::FailJobLocked(ActiveJob& job, JobOutcome outcome, const std::string& why, Deferred& d) {
  if (!job.active) return;
  job.active = false;
  job.cancel.Cancel();
  (outcome == JobOutcome::kCancelled ? cancelled : failed)++;
  // Never dispatched: nothing to tell the pacer.
  for (auto& [key, unused] : synthesis_queue.RemoveJob(job.seq))
    SetStageLocked(job, key.partition, PartitionStage::kSkipped);
  // Dispatched and synthesized, but will never reach a GPU: completions for the pacer.
  auto queued = gpu_queue.RemoveJob(job.seq);
  if (!queued.empty()) pacer.OnRetired(NowS(), queued.size());
  for (auto& [key, item] : queued) {
    SetStageLocked(job, key.partition, PartitionStage::kSkipped);
    RetireLocked(std::move(item), d);
  }
  UpdatePacerQueuesLocked();
  if (dispatch_key && dispatch_key->job_seq == job.seq) InterruptDispatchLocked();
  JobResult r;
  r.job_id = job.id;
  r.outcome = outcome;
  r.error = why;
  r.timings = job.timings;
  r.timings.total_ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - job.submitted).count();
  if (job.on_done) Notify([cb = std::move(job.on_done), r = std::move(r)]() mutable { cb(std::move(r)); });
  ReleaseIfIdleLocked(job, d);
  ids.erase(job.id);
  jobs.erase(job.seq);  // in-flight items keep the state alive until they are dropped
  dispatch_cv.SignalAll();
  jobs_cv.SignalAll();
}

void Pipeline::Impl::CompleteJobLocked(ActiveJob& job, Deferred& d) {
  job.active = false;
  ++completed;
  JobResult r;
  r.job_id = job.id;
  r.outcome = JobOutcome::kCompleted;
  r.timings = job.timings;
  r.timings.total_ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - job.submitted).count();
  size_t total = 0;
  for (auto& p : job.proofs) total += p.size();
  r.proof.reserve(total);
  for (auto& p : job.proofs) r.proof.insert(r.proof.end(), p.begin(), p.end());
  r.partition_proofs = std::move(job.proofs);
  if (job.on_done) Notify([cb = std::move(job.on_done), r = std::move(r)]() mutable { cb(std::move(r)); });
  ReleaseIfIdleLocked(job, d);
  ids.erase(job.id);
  jobs.erase(job.seq);
  jobs_cv.SignalAll();
}

DispatchState Pipeline::Impl::DispatchStateLocked() const {
  DispatchState s;
  s.queue_empty = synthesis_queue.empty();
  s.free_synthesis = free_synth;
  s.in_synthesis = InSynthesisLocked();
  s.gpu_queue = gpu_queue.size();
  s.max_run_ahead = config.max_run_ahead;
  s.pinned_pool = pinned != nullptr;
  if (!s.queue_empty) {
    const PartitionKey key = synthesis_queue.TopKey();
    s.head = jobs.at(key.job_seq)->bytes[key.partition];
  }
  return s;
}

void Pipeline::Impl::DispatchLoop() {
  mu.Lock();
  Deferred d;
  uint64_t dispatches = 0;
  while (!stopping) {
    UpdatePacerQueuesLocked();
    const double now = NowS();
    DispatchState state = DispatchStateLocked();
    DispatchDecision decision = DecideDispatch(state);
    if (decision.action == DispatchAction::kAskPacer) {
      state.pacer = AskPacer(pacer, now);
      decision = DecideDispatch(state);
    }
    if (decision.action != DispatchAction::kAcquireBudget) {
      // Held by capacity (a pickup or a synthesis end wakes us), by an empty
      // queue (a submission does), or by the pacer until its deadline.
      pacer.SetHeld(now, decision.pacer_held);
      if (decision.action == DispatchAction::kWaitUntil && std::isfinite(decision.wake_at_s)) {
        const auto at = start + std::chrono::duration_cast<SteadyClock::duration>(
                                    std::chrono::duration<double>(std::max(decision.wake_at_s, now + 1e-4)));
        dispatch_cv.WaitWithDeadline(&mu, AbslDeadline(at));
      } else {
        dispatch_cv.Wait(&mu);
      }
      continue;
    }
    const PartitionKey key = synthesis_queue.TopKey();
    std::shared_ptr<ActiveJob> job = jobs.at(key.job_seq);
    ++job->in_flight;  // held while the budget wait runs; handed to the WorkItem on dispatch
    const PartitionBytes want = state.head;
    // The budget wait happens without the pipeline lock (evictors may take
    // other locks); a more urgent arrival or a cancellation interrupts it.
    pacer.SetHeld(now, decision.pacer_held);
    dispatch_stop.emplace();
    dispatch_key = key;
    std::stop_token stop = dispatch_stop->get_token();
    mu.Unlock();
    // An idle pinned buffer is already charged: it covers the a/b/c part.
    std::optional<memory::PinnedBuffer> idle;
    if (decision.take_idle_pinned) idle = pinned->TakeIdle(want.abc);
    if (decision.take_idle_pinned && !idle) {
      mu.Lock();
      dispatch_wants_idle_pinned = true;  // a GPU worker that frees a buffer interrupts the wait
      mu.Unlock();
    }
    std::optional<memory::Reservation> res;
    try {
      res = budget.Acquire(BudgetCharge(want, idle.has_value()), BudgetPriority(key.priority), stop);
    } catch (const memory::BudgetExceededError&) {
      // Submit refuses such partitions; a budget cannot shrink, so this is unreachable.
      res.reset();
    }
    mu.Lock();
    dispatch_stop.reset();
    dispatch_key.reset();
    dispatch_wants_idle_pinned = false;
    state.budget_granted = res.has_value();
    decision = DecideDispatch(state);
    pacer.SetHeld(NowS(), false);  // the wait is over, granted or not; the next pass decides again
    if (decision.action != DispatchAction::kDispatch || !job->active || synthesis_queue.empty() ||
        !(synthesis_queue.TopKey() == key)) {
      // Interrupted, the job went away, or something more urgent came while
      // the grant landed: keep the strict order, give everything back.
      WorkItem dropped;
      dropped.job = job;
      if (res) dropped.reservation = std::move(*res);
      if (idle) dropped.preleased = std::move(*idle);
      RetireLocked(std::move(dropped), d);
      job.reset();
      mu.Unlock();
      Flush(d);
      mu.Lock();
      continue;
    }
    synthesis_queue.Pop();
    WorkItem item;
    item.job = job;
    item.partition = key.partition;
    item.reservation = std::move(*res);
    item.abc_left = idle ? 0 : want.abc;
    if (idle) item.preleased = std::move(*idle);
    if (!job->started) {
      job->started = true;
      if (job->on_started) Notify(job->on_started);
    }
    SetStageLocked(*job, key.partition, PartitionStage::kDispatched);
    synth_ready.push_back(std::move(item));
    --free_synth;
    pacer.OnDispatch(NowS());
    UpdatePacerQueuesLocked();
    synth_cv.Signal();
    if (config.pacer_status_every && ++dispatches % config.pacer_status_every == 0 && config.timeline)
      d.lines.push_back(FormatPacerStatus(pacer.State(NowS())));
    mu.Unlock();
    Flush(d);
    mu.Lock();
  }
  mu.Unlock();
}

Pipeline::Pipeline(PipelineConfig config, memory::Budget& budget, memory::PinnedPool* pinned)
    : impl_(std::make_unique<Impl>(std::move(config), budget, pinned)) {
  Impl& m = *impl_;
  if (m.config.synthesis_threads == 0) throw std::invalid_argument("Pipeline: synthesis_threads must be >= 1");
  if (m.config.finalizer_threads == 0) throw std::invalid_argument("Pipeline: finalizer_threads must be >= 1");
  m.free_synth = m.config.synthesis_threads;
  std::vector<int> devices = m.config.gpu_devices;
  if (devices.empty()) devices.push_back(-1);
  const unsigned per_device = std::max(1u, m.config.gpu_workers_per_device);
  for (int dev : devices)
    for (unsigned k = 0; k < per_device; ++k) {
      GpuWorkerStatus w;
      w.worker = unsigned(m.gpu_workers.size());
      w.device = dev;
      m.gpu_workers.push_back(w);
    }
  // Each thread says when it has left its loop, so Shutdown can wait with a deadline.
  auto spawn = [&m](std::function<void()> loop) {
    {
      absl::MutexLock lock(&m.mu);
      ++m.running_threads;
    }
    m.threads.emplace_back([&m, loop = std::move(loop)] {
      loop();
      absl::MutexLock lock(&m.mu);
      --m.running_threads;
      m.jobs_cv.SignalAll();
    });
  };
  spawn([&m] { m.DispatchLoop(); });
  for (unsigned i = 0; i < m.config.synthesis_threads; ++i) spawn([&m] { m.SynthesisLoop(); });
  for (auto& w : m.gpu_workers) spawn([&m, worker = w.worker, device = w.device] { m.GpuLoop(worker, device); });
  for (unsigned i = 0; i < m.config.finalizer_threads; ++i) spawn([&m] { m.FinalizerLoop(); });
}

Pipeline::~Pipeline() { Shutdown(); }

bool Pipeline::Shutdown(SteadyClock::time_point drain_until) {
  Impl& m = *impl_;
  Deferred d;
  m.mu.Lock();
  if (m.shutdown_result) {
    const bool result = *m.shutdown_result;
    m.mu.Unlock();
    return result;
  }
  m.accepting = false;
  // Not started: cancelled at once.
  std::vector<std::shared_ptr<ActiveJob>> waiting;
  for (auto& [seq, job] : m.jobs)
    if (!job->started) waiting.push_back(job);
  for (auto& job : waiting) m.FailJobLocked(*job, JobOutcome::kCancelled, "pipeline shut down", d);
  // Started: until the deadline, then cancelled.
  while (!m.jobs.empty() && SteadyClock::now() < drain_until)
    m.jobs_cv.WaitWithDeadline(&m.mu, AbslDeadline(drain_until));
  std::vector<std::shared_ptr<ActiveJob>> active;
  for (auto& [seq, job] : m.jobs) active.push_back(job);
  for (auto& job : active) m.FailJobLocked(*job, JobOutcome::kCancelled, "pipeline shut down", d);
  m.stopping = true;
  m.InterruptDispatchLocked();
  m.dispatch_cv.SignalAll();
  m.synth_cv.SignalAll();
  m.gpu_cv.SignalAll();
  m.fin_cv.SignalAll();
  m.mu.Unlock();
  m.Flush(d);
  m.mu.Lock();
  const auto grace = std::max(drain_until, SteadyClock::now()) + std::chrono::seconds(1);
  while (m.running_threads != 0 && SteadyClock::now() < grace) m.jobs_cv.WaitWithDeadline(&m.mu, AbslDeadline(grace));
  const bool stopped = m.running_threads == 0;
  m.shutdown_result = stopped;
  m.mu.Unlock();
  if (stopped)
    for (auto& t : m.threads) t.join();
  return stopped;
}

void Pipeline::Shutdown() {
  Impl& m = *impl_;
  if (Shutdown(SteadyClock::now())) return;
  // A JobWork call is still running: wait for it (there is no other safe way).
  for (auto& t : m.threads)
    if (t.joinable()) t.join();
}

void Pipeline::Submit(JobRequest request) {
  Impl& m = *impl_;
  if (request.id.empty()) throw std::invalid_argument("job id is empty");
  if (!request.work) throw std::invalid_argument("job " + request.id + " has no work");
  if (request.partitions == 0) throw std::invalid_argument("job " + request.id + " has no partitions");
  auto job = std::make_shared<ActiveJob>();
  job->bytes.reserve(request.partitions);
  for (uint32_t p = 0; p < request.partitions; ++p) {
    PartitionBytes b = request.work->EstimateBytes(p);
    if (b.abc > b.total)
      throw std::invalid_argument("job " + request.id + " partition " + std::to_string(p) +
                                  ": a/b/c bytes exceed the partition's total");
    if (b.total > m.budget.capacity()) throw memory::BudgetExceededError(b.total, m.budget.capacity());
    job->bytes.push_back(b);
  }
  job->id = std::move(request.id);
  job->priority = request.priority;
  job->partitions = request.partitions;
  job->work = std::move(request.work);
  job->on_done = std::move(request.on_done);
  job->on_started = std::move(request.on_started);
  job->on_stage = std::move(request.on_stage);
  job->on_released = std::move(request.on_released);
  job->kind = std::move(request.kind);
  job->cancel = std::move(request.cancel);
  job->status.assign(job->partitions, {});
  job->proofs.assign(job->partitions, {});
  job->submitted = SteadyClock::now();
  absl::MutexLock lock(&m.mu);
  if (!m.accepting || m.stopping) throw std::runtime_error("pipeline is shut down");
  if (m.ids.count(job->id)) throw std::invalid_argument("job " + job->id + " is already running");
  job->seq = m.next_seq++;
  m.ids[job->id] = job->seq;
  m.jobs[job->seq] = job;
  for (uint32_t p = 0; p < job->partitions; ++p) m.synthesis_queue.Push({job->priority, job->seq, p}, 0);
  // A more urgent head than the one the dispatcher waits budget for: re-pick.
  if (m.dispatch_key && PartitionKey{job->priority, job->seq, 0} < *m.dispatch_key) m.InterruptDispatchLocked();
  m.dispatch_cv.SignalAll();
}

bool Pipeline::Cancel(std::string_view job_id) {
  Impl& m = *impl_;
  Deferred d;
  {
    absl::MutexLock lock(&m.mu);
    auto it = m.ids.find(std::string(job_id));
    if (it == m.ids.end()) return false;
    std::shared_ptr<ActiveJob> job = m.jobs.at(it->second);
    m.FailJobLocked(*job, JobOutcome::kCancelled, "cancelled", d);
  }
  m.Flush(d);
  return true;
}

std::optional<uint32_t> Pipeline::QueuePosition(std::string_view job_id) const {
  Impl& m = *impl_;
  absl::MutexLock lock(&m.mu);
  auto it = m.ids.find(std::string(job_id));
  if (it == m.ids.end()) return std::nullopt;
  const ActiveJob& job = *m.jobs.at(it->second);
  if (job.started) return std::nullopt;
  const PartitionKey mine{job.priority, job.seq, 0};
  uint32_t ahead = 0;
  for (auto& [seq, other] : m.jobs)
    if (!other->started && PartitionKey{other->priority, other->seq, 0} < mine) ++ahead;
  return ahead;
}

bool Pipeline::RemoveQueued(std::string_view job_id) {
  Impl& m = *impl_;
  absl::MutexLock lock(&m.mu);
  auto it = m.ids.find(std::string(job_id));
  if (it == m.ids.end()) return false;
  std::shared_ptr<ActiveJob> job = m.jobs.at(it->second);
  if (job->started) return false;
  job->active = false;
  job->cancel.Cancel();
  job->on_done = nullptr;  // the caller finishes it
  job->on_released = nullptr;
  m.synthesis_queue.RemoveJob(job->seq);
  if (m.dispatch_key && m.dispatch_key->job_seq == job->seq) m.InterruptDispatchLocked();
  m.ids.erase(it);
  m.jobs.erase(job->seq);
  m.dispatch_cv.SignalAll();
  m.jobs_cv.SignalAll();
  return true;
}

PipelineStatus Pipeline::Status() const {
  Impl& m = *impl_;
  PipelineStatus s;
  {
    absl::MutexLock lock(&m.mu);
    const auto now = SteadyClock::now();
    for (auto& [seq, job] : m.jobs) {
      JobStatus j;
      j.id = job->id;
      j.kind = job->kind;
      j.started = job->started;
      j.priority = job->priority;
      j.age_ms = std::chrono::duration<double, std::milli>(now - job->submitted).count();
      j.partitions = job->status;
      s.jobs.push_back(std::move(j));
    }
    s.synthesis_queue = m.synthesis_queue.size();
    s.synthesizing = m.synthesizing + m.synth_ready.size();
    s.gpu_queue = m.gpu_queue.size();
    s.finalizer_queue = m.fin_queue.size();
    s.synthesis_threads = m.config.synthesis_threads;
    s.gpu_workers = m.gpu_workers;
    s.pacer = m.pacer.State(m.NowS());
    s.jobs_completed = m.completed;
    s.jobs_failed = m.failed;
    s.jobs_cancelled = m.cancelled;
  }
  const memory::BudgetStats b = m.budget.Stats();
  s.budget_bytes = b.capacity;
  s.reserved_bytes = b.reserved;
  s.peak_reserved_bytes = b.peak;
  if (m.pinned) {
    s.has_pinned_pool = true;
    s.pinned = m.pinned->Stats();
  }
  return s;
}

}  // namespace cuzk::scheduler
