// The stage loops of scheduler::Pipeline: synthesis threads, GPU workers and
// finalizers. Each takes an item under the lock, runs the work without it,
// and comes back under the lock only to hand the result on; lines, callbacks
// and the destruction of stage data are deferred until the lock is released.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/util/thread_priority.hpp"
#include "scheduler/pipeline_impl.hpp"

namespace cuzk::scheduler {
namespace {

double MsBetween(SteadyClock::time_point a, SteadyClock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string Ms(double ms) { return std::to_string(int64_t(ms + 0.5)); }

std::string PartitionDetail(uint32_t p) { return "partition=" + std::to_string(p); }

std::string WorkerDetail(unsigned w, uint32_t p) {
  return "worker=" + std::to_string(w) + ",partition=" + std::to_string(p);
}

std::string Fmt2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

// Runs one stage's work call: a CancelledError (the token checked first, or
// thrown by the work) sets `cancelled`, any other exception becomes `error`.
// Every stage handles failures the same way, so they do it here once.
template <class Body>
void RunStage(const CancelToken& cancel, bool& cancelled, std::string& error, Body&& body) {
  try {
    cancel.ThrowIfCancelled();
    body();
  } catch (const CancelledError&) {
    cancelled = true;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
}

}  // namespace

void Pipeline::Impl::EndPartitionLocked(ActiveJob& job, uint32_t partition, const char* stage, const std::string& error,
                                        Deferred& d) {
  if (job.active && !error.empty()) {
    SetStageLocked(job, partition, PartitionStage::kFailed);
    FailJobLocked(job, JobOutcome::kFailed,
                  "partition " + std::to_string(partition) + " " + stage + " failed: " + error, d);
    return;
  }
  SetStageLocked(job, partition, PartitionStage::kSkipped);
  // The job's token was set without Cancel (a stage saw it first): end the
  // job here, or its queued partitions would each be skipped and it would
  // never finish.
  if (job.active) FailJobLocked(job, JobOutcome::kCancelled, "cancelled", d);
}

void Pipeline::Impl::SynthesisLoop() {
  util::LowerThisThreadPriority(config.synthesis_nice);  // threads created later by this one inherit it
  mu.Lock();
  for (;;) {
    while (!stopping && synth_ready.empty()) synth_cv.Wait(&mu);
    if (synth_ready.empty()) break;  // stopping, nothing left
    WorkItem item = std::move(synth_ready.front());
    synth_ready.pop_front();
    Deferred d;
    ActiveJob& job = *item.job;
    if (!job.active) {  // failed or cancelled after dispatch: skipped, a completion for the pacer
      SetStageLocked(job, item.partition, PartitionStage::kSkipped);
      pacer.OnRetired(NowS());
      ++free_synth;
      UpdatePacerQueuesLocked();
      RetireLocked(std::move(item), d);
      dispatch_cv.SignalAll();
      mu.Unlock();
      Flush(d);
      mu.Lock();
      continue;
    }
    ++synthesizing;
    const auto t0 = SteadyClock::now();
    if (!job.first_synth_start) {
      job.first_synth_start = t0;
      job.timings.queue_wait_ms = MsBetween(job.submitted, t0);
    }
    SetStageLocked(job, item.partition, PartitionStage::kSynthesizing);
    Line(d, "SYNTH_START", job, PartitionDetail(item.partition));
    mu.Unlock();
    Flush(d);

    PartitionContext ctx = Context(item);
    ctx.pinned_pool = pinned;
    ctx.reservation = &item.reservation;
    ctx.abc_left = &item.abc_left;
    ctx.preleased = &item.preleased;
    std::string error;
    bool cancelled = false;
    RunStage(ctx.cancel, cancelled, error, [&] { item.data = job.work->Synthesize(ctx); });
    const auto t1 = SteadyClock::now();
    // The pacer learns the whole stage; the job's figures keep the wait for
    // shared inputs (parameters loading) apart.
    const double stage_ms = MsBetween(t0, t1);
    const double wait_ms = std::clamp(ctx.input_wait_ms, 0.0, stage_ms);
    const double synth_ms = stage_ms - wait_ms;

    mu.Lock();
    --synthesizing;
    ++free_synth;
    pacer.OnSynthDone(NowS(), stage_ms / 1e3);
    job.status[item.partition].synth_ms = synth_ms;
    job.status[item.partition].srs_load_ms = wait_ms;
    job.timings.synthesis_ms += synth_ms;
    job.timings.srs_load_ms = std::max(job.timings.srs_load_ms, wait_ms);
    Line(d, "SYNTH_END", job, PartitionDetail(item.partition) + ",synth_ms=" + Ms(synth_ms));
    if (!job.active || cancelled || !error.empty()) {
      pacer.OnRetired(NowS());
      EndPartitionLocked(job, item.partition, "synthesis", error, d);
      RetireLocked(std::move(item), d);
    } else {
      SetStageLocked(job, item.partition, PartitionStage::kGpuQueued);
      Line(d, "GPU_QUEUE", job, PartitionDetail(item.partition));
      const PartitionKey key{job.priority, job.seq, item.partition};
      gpu_queue.Push(key, std::move(item));
      gpu_cv.Signal();
    }
    UpdatePacerQueuesLocked();
    dispatch_cv.SignalAll();
    mu.Unlock();
    Flush(d);
    mu.Lock();
  }
  mu.Unlock();
}

void Pipeline::Impl::GpuLoop(unsigned worker, int device) {
  mu.Lock();
  for (;;) {
    while (!stopping && gpu_queue.empty()) gpu_cv.Wait(&mu);
    if (gpu_queue.empty()) break;
    // GPU_TIMING: the hot path from pickup to the GPU start, piece by piece.
    const auto t_pickup = SteadyClock::now();
    WorkItem item = gpu_queue.Pop().second;  // not a structured binding: the GPU call's lambda captures it
    ActiveJob& job = *item.job;
    Deferred d;
    const auto t_status = SteadyClock::now();
    job.status[item.partition].worker = int(worker);  // before the stage's notification, which carries it
    SetStageLocked(job, item.partition, PartitionStage::kGpu);
    const auto t_fail_check = SteadyClock::now();
    const bool live = job.active;  // a failed job's queued partitions were removed; this is the race guard
    const auto t_mark_busy = SteadyClock::now();
    gpu_workers[worker].busy = true;
    gpu_workers[worker].job_id = job.id;
    gpu_workers[worker].partition = int(item.partition);
    UpdatePacerQueuesLocked();
    Line(d, "GPU_PICKUP", job, WorkerDetail(worker, item.partition));
    const auto t_unlock = SteadyClock::now();
    dispatch_cv.SignalAll();  // the queue shrank: the pacer may want to refill
    mu.Unlock();
    Flush(d);

    std::string error;
    bool cancelled = !live;
    std::unique_ptr<StageData> pending;
    double gpu_ms = 0;
    std::string gpu_steps;  // the work's own steps inside GpuStart (StageData::TimingDetail)
    SteadyClock::time_point t_enter = SteadyClock::now();
    if (live) {
      PartitionContext ctx = Context(item);
      ctx.device = device;
      ctx.worker = worker;
      if (config.timeline)
        config.timeline(TimelineLine(NowMs(), "GPU_START", job.id, WorkerDetail(worker, item.partition)));
      t_enter = SteadyClock::now();
      RunStage(ctx.cancel, cancelled, error, [&] { pending = job.work->GpuStart(ctx, std::move(item.data)); });
      const auto t_end = SteadyClock::now();
      if (pending) gpu_steps = pending->TimingDetail();
      gpu_ms = MsBetween(t_enter, t_end);
      if (config.timeline)
        config.timeline(
            TimelineLine(NowMs(), "GPU_END", job.id, WorkerDetail(worker, item.partition) + ",gpu_ms=" + Ms(gpu_ms)));
      item.data.reset();                        // whatever the work left of the synthesized data
      item.preleased = memory::PinnedBuffer();  // unused by the work: back to the pool
      item.reservation.Release(item.abc_left);  // a/b/c consumed by the GPU start
      item.abc_left = 0;
    }

    mu.Lock();
    // Its pinned a/b/c buffer just went idle: a dispatcher waiting to charge
    // a/b/c in full should take that buffer instead (before an evictor frees it).
    if (dispatch_wants_idle_pinned) InterruptDispatchLocked();
    gpu_workers[worker].busy = false;
    gpu_workers[worker].job_id.clear();
    gpu_workers[worker].partition = -1;
    if (live && error.empty() && !cancelled) {
      pacer.OnGpuComplete(NowS(), gpu_ms / 1e3);
      job.status[item.partition].gpu_ms = gpu_ms;
      job.timings.gpu_compute_ms += gpu_ms;
    } else {
      pacer.OnRetired(NowS());
    }
    if (job.active && error.empty() && !cancelled) {
      SetStageLocked(job, item.partition, PartitionStage::kFinalizing);
      item.data = std::move(pending);
      fin_queue.push_back(std::move(item));
      fin_cv.Signal();
    } else {
      EndPartitionLocked(job, item.partition, "GPU start", error, d);
      if (pending) {
        WorkItem p;
        p.data = std::move(pending);
        d.garbage.push_back(std::move(p));
      }
      RetireLocked(std::move(item), d);
    }
    dispatch_cv.SignalAll();
    if (config.timeline && live) {
      const double spawn_to_enter = MsBetween(t_unlock, t_enter);
      d.lines.push_back("GPU_TIMING," + job.id + "," + WorkerDetail(worker, item.partition) +
                        ",status_ms=" + Fmt2(MsBetween(t_pickup, t_status)) +
                        ",fail_check_ms=" + Fmt2(MsBetween(t_fail_check, t_mark_busy)) +
                        ",mark_busy_ms=" + Fmt2(MsBetween(t_mark_busy, t_unlock)) +
                        ",total_overhead_ms=" + Fmt2(MsBetween(t_pickup, t_unlock)) +
                        ",spawn_to_enter_ms=" + Fmt2(spawn_to_enter) + ",prove_start_ms=" + Fmt2(gpu_ms) +
                        ",total_pre_prove_ms=" + Fmt2(MsBetween(t_pickup, t_enter)) + gpu_steps);
    }
    mu.Unlock();
    Flush(d);
    mu.Lock();
  }
  mu.Unlock();
}

void Pipeline::Impl::FinalizerLoop() {
  mu.Lock();
  for (;;) {
    while (!stopping && fin_queue.empty()) fin_cv.Wait(&mu);
    if (fin_queue.empty()) break;
    WorkItem item = std::move(fin_queue.front());
    fin_queue.pop_front();
    ActiveJob& job = *item.job;
    Deferred d;
    if (!job.active) {  // GPU-completed already: no pacer change
      SetStageLocked(job, item.partition, PartitionStage::kSkipped);
      RetireLocked(std::move(item), d);
      mu.Unlock();
      Flush(d);
      mu.Lock();
      continue;
    }
    mu.Unlock();

    // FIN_TIMING: finish, verify, the release, the lock, the bookkeeping.
    const auto t0 = SteadyClock::now();
    PartitionContext ctx = Context(item);
    std::vector<uint8_t> proof;
    std::string error;
    bool cancelled = false;
    bool verified = false;
    SteadyClock::time_point t_finish = t0;
    RunStage(ctx.cancel, cancelled, error, [&] {
      proof = job.work->Finish(ctx, std::move(item.data));
      t_finish = SteadyClock::now();
      verified = job.work->Verify(ctx, proof);
      if (!verified) error = "proof failed verification";
    });
    if (t_finish == t0) t_finish = SteadyClock::now();
    const auto t_verify = SteadyClock::now();
    item.data.reset();
    item.reservation.Reset();  // the rest of the partition's bytes
    const auto t_drop = SteadyClock::now();

    mu.Lock();
    const auto t_locked = SteadyClock::now();
    const double fin_ms = MsBetween(t0, t_verify);
    job.timings.finalize_ms += fin_ms;
    job.timings.verify_ms += MsBetween(t_finish, t_verify);
    job.status[item.partition].finalize_ms = fin_ms;
    job.status[item.partition].verify_ms = MsBetween(t_finish, t_verify);
    if (job.active && error.empty() && !cancelled) {
      SetStageLocked(job, item.partition, PartitionStage::kDone);
      job.proofs[item.partition] = std::move(proof);
      if (++job.finished == job.partitions) CompleteJobLocked(job, d);
    } else {
      EndPartitionLocked(job, item.partition, "finalize", error, d);
    }
    RetireLocked(std::move(item), d);  // its data and reservation are gone already
    const auto t_done = SteadyClock::now();
    if (config.timeline) {
      d.lines.insert(d.lines.begin(), TimelineLine(NowMs(), "FIN_END", job.id,
                                                   PartitionDetail(item.partition) + ",fin_ms=" + Ms(fin_ms)));
      d.lines.push_back(
          "FIN_TIMING," + job.id + "," + PartitionDetail(item.partition) +
          ",finish_ms=" + Fmt2(MsBetween(t0, t_finish)) + ",verify_ms=" + Fmt2(MsBetween(t_finish, t_verify)) +
          ",drop_res_ms=" + Fmt2(MsBetween(t_verify, t_drop)) + ",lock_wait_ms=" + Fmt2(MsBetween(t_drop, t_locked)) +
          ",process_ms=" + Fmt2(MsBetween(t_locked, t_done)) + ",total_ms=" + Fmt2(MsBetween(t0, t_done)));
    }
    mu.Unlock();
    Flush(d);
    mu.Lock();
  }
  mu.Unlock();
}

}  // namespace cuzk::scheduler
