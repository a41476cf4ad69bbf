// The discrete-event loop of the simulator (simulator.hpp). One event queue
// ordered by (time, sequence) so equal times resolve in a fixed order; after
// every batch of events at one instant the state is stable until the next
// event, which is when the time integrals (GPU busy, throttled, ...) advance.
#include "tools/simulator/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <queue>
#include <random>

#include "memory/budget.hpp"
#include "scheduler/dispatch_decision.hpp"
#include "scheduler/partition_queue.hpp"

namespace cuzk::scheduler {
namespace {

enum class EventKind { kArrival, kSynthDone, kGpuDone, kFinDone, kWake };

struct Event {
  double t;
  uint64_t seq;
  EventKind kind;
  uint32_t arg;  // job (arrival), part id (synth/fin), worker (gpu)
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Part {
  uint32_t job = 0, partition = 0;
  memory::Reservation reservation;
};

struct Job {
  SimJobSpec spec;
  uint32_t index = 0;
  double arrival_s = 0;
  uint32_t finished = 0;  // partitions finalized
  bool failed = false, done = false;
  std::vector<bool> fails;
  SimJobResult result;
};

class Simulation {
 public:
  Simulation(const SimScenario& s, const TimelineSink& sink)
      : s_(s),
        sink_(sink),
        rng_(s.seed),
        budget_(s.budget_bytes),
        workers_(s.gpu_devices * s.gpu_workers_per_device),
        pacer_(s.pacer, workers_, 0),
        gpu_busy_(workers_, -1),
        free_synth_(s.synthesis_workers) {}

  SimResult Run();

 private:
  double Sample(const TimeRange& r) {
    if (r.max_s <= r.min_s) return r.min_s;
    // 53 random bits: the same on every standard library (unlike uniform_real_distribution).
    const double u = double(rng_() >> 11) * 0x1.0p-53;
    return r.min_s + u * (r.max_s - r.min_s);
  }
  void Push(double t, EventKind k, uint32_t arg) { events_.push({t, seq_++, k, arg}); }
  std::string JobId(uint32_t job) const { return "job-" + std::to_string(job); }
  void Line(const char* event, uint32_t job, const std::string& detail) {
    if (sink_) sink_(TimelineLine(now_ * 1e3, event, JobId(job), detail));
  }
  PartitionKey Key(uint32_t part) const {
    const Part& p = parts_[part];
    return {jobs_[p.job].spec.priority, p.job, p.partition};
  }

  void Integrate(double until);
  void Handle(const Event& e);
  void Arrive(uint32_t job);
  void SynthDone(uint32_t part);
  void GpuDone(uint32_t worker);
  void FinDone(uint32_t part);
  void FailJob(uint32_t job, const std::string& why);
  void Schedule();
  void StartGpus();
  void StartFinalizer();
  void Dispatch();
  DispatchState State() const;
  bool HeadFits() const;
  void FinishResult(SimResult& r);

  const SimScenario& s_;
  const TimelineSink& sink_;
  std::mt19937_64 rng_;
  memory::Budget budget_;
  const uint32_t workers_;
  DispatchPacer pacer_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t seq_ = 0;
  double now_ = 0;

  std::vector<Job> jobs_;
  std::vector<Part> parts_;
  std::vector<double> synth_started_at_;  // by part id
  SynthesisQueue<uint32_t> synth_q_;
  GpuQueue<uint32_t> gpu_q_;
  std::vector<int64_t> gpu_busy_;  // part id per worker, -1 idle
  std::vector<double> gpu_started_at_;
  uint32_t free_synth_;
  uint64_t synthesizing_ = 0;
  std::deque<uint32_t> fin_q_;
  bool fin_busy_ = false;
  double wake_at_ = -1;

  SimResult r_;
  std::vector<std::pair<double, double>> gpu_intervals_;
  bool gpu_started_ = false;
  double queue_depth_integral_ = 0;
};

bool Simulation::HeadFits() const { return !synth_q_.empty() && s_.bytes_per_partition <= budget_.available(); }

void Simulation::Integrate(double until) {
  const double dt = until - now_;
  if (!(dt > 0)) return;
  uint32_t busy = 0;
  for (int64_t b : gpu_busy_) busy += b >= 0;
  r_.gpu_busy_s += busy * dt;
  if (!gpu_q_.empty() && busy < workers_) r_.gpu_idle_while_work_pending_s += dt;
  if (gpu_started_) queue_depth_integral_ += double(gpu_q_.size()) * dt;
  // Work and capacity (a free synthesis thread, max_run_ahead) were there.
  const DispatchAction gate = DecideDispatch(State()).action;
  const bool ready = gate != DispatchAction::kWaitForWork && gate != DispatchAction::kWaitForCapacity;
  if (ready && double(gpu_q_.size()) < s_.pacer.target && HeadFits()) {
    // Everything needed for a dispatch was there, yet the pacer held it.
    (pacer_.in_bootstrap() ? r_.pacer_throttled_during_bootstrap_s : r_.pacer_throttled_while_starved_s) += dt;
  }
  if (ready && !HeadFits()) r_.budget_held_s += dt;
}

void Simulation::Arrive(uint32_t job) {
  Job& j = jobs_[job];
  j.result.arrival_s = now_;
  if (s_.bytes_per_partition > budget_.capacity()) {
    // What the real Budget says to a request that can never fit.
    try {
      budget_.TryAcquire(s_.bytes_per_partition, BudgetPriority(j.spec.priority));
    } catch (const memory::BudgetExceededError& e) {
      j.failed = j.done = true;
      j.result.status = std::string("failed: RESOURCE_EXHAUSTED: ") + e.what();
      j.result.done_s = now_;
      ++r_.jobs_failed;
      return;
    }
  }
  for (uint32_t p = 0; p < j.spec.partitions; ++p) {
    const uint32_t id = uint32_t(parts_.size());
    parts_.push_back({job, p, {}});
    synth_started_at_.push_back(0);
    synth_q_.Push(Key(id), id);
  }
}

void Simulation::FailJob(uint32_t job, const std::string& why) {
  Job& j = jobs_[job];
  if (j.failed || j.done) return;
  j.failed = j.done = true;
  j.result.status = "failed: " + why;
  j.result.done_s = now_;
  ++r_.jobs_failed;
  synth_q_.RemoveJob(job);  // never dispatched: not the pacer's concern
  auto queued = gpu_q_.RemoveJob(job);
  for (auto& [key, part] : queued) parts_[part].reservation.Reset();
  if (!queued.empty()) pacer_.OnRetired(now_, queued.size());
  pacer_.SetQueues(now_, gpu_q_.size(), synthesizing_);
}

void Simulation::SynthDone(uint32_t part) {
  Part& p = parts_[part];
  Job& j = jobs_[p.job];
  ++free_synth_;
  --synthesizing_;
  pacer_.OnSynthDone(now_, now_ - synth_started_at_[part]);
  Line("SYNTH_END", p.job, "partition=" + std::to_string(p.partition));
  if (!j.failed && j.fails[p.partition]) {
    p.reservation.Reset();
    pacer_.OnRetired(now_);
    FailJob(p.job, "partition " + std::to_string(p.partition) + " failed in synthesis");
    return;
  }
  if (j.failed) {  // a sibling failed meanwhile: skipped
    p.reservation.Reset();
    pacer_.OnRetired(now_);
    return;
  }
  gpu_q_.Push(Key(part), part);
  r_.max_gpu_queue_depth = std::max<uint64_t>(r_.max_gpu_queue_depth, gpu_q_.size());
  pacer_.SetQueues(now_, gpu_q_.size(), synthesizing_);
  Line("GPU_QUEUE", p.job, "partition=" + std::to_string(p.partition));
}

void Simulation::GpuDone(uint32_t worker) {
  const uint32_t part = uint32_t(gpu_busy_[worker]);
  gpu_busy_[worker] = -1;
  Part& p = parts_[part];
  const double gpu_s = now_ - gpu_started_at_[worker];
  gpu_intervals_.push_back({gpu_started_at_[worker], now_});
  r_.last_gpu_end_s = now_;
  pacer_.OnGpuComplete(now_, gpu_s);
  Line("GPU_END", p.job,
       "worker=" + std::to_string(worker) + ",partition=" + std::to_string(p.partition) +
           ",gpu_ms=" + std::to_string(int64_t(std::llround(gpu_s * 1e3))));
  fin_q_.push_back(part);
}

void Simulation::FinDone(uint32_t part) {
  fin_busy_ = false;
  Part& p = parts_[part];
  Job& j = jobs_[p.job];
  p.reservation.Reset();
  if (j.failed) return;
  ++r_.partitions_proved;
  Line("FIN_END", p.job, "partition=" + std::to_string(p.partition));
  if (++j.finished == j.spec.partitions) {
    j.done = true;
    j.result.done_s = now_;
    j.result.status = "completed";
    ++r_.jobs_completed;
    r_.makespan_s = std::max(r_.makespan_s, now_);
  }
}

void Simulation::StartGpus() {
  for (uint32_t w = 0; w < workers_ && !gpu_q_.empty(); ++w) {
    if (gpu_busy_[w] >= 0) continue;
    auto [key, part] = gpu_q_.Pop();
    Part& p = parts_[part];
    gpu_busy_[w] = part;
    gpu_started_at_[w] = now_;
    if (!gpu_started_) {
      gpu_started_ = true;
      r_.first_gpu_start_s = now_;
    }
    const std::string detail = "worker=" + std::to_string(w) + ",partition=" + std::to_string(p.partition);
    Line("GPU_PICKUP", p.job, detail);
    Line("GPU_START", p.job, detail);
    p.reservation.Release(s_.abc_bytes);  // a/b/c consumed by the GPU start
    Push(now_ + Sample(s_.gpu_time), EventKind::kGpuDone, w);
  }
  pacer_.SetQueues(now_, gpu_q_.size(), synthesizing_);
}

void Simulation::StartFinalizer() {
  while (!fin_busy_ && !fin_q_.empty()) {
    const uint32_t part = fin_q_.front();
    fin_q_.pop_front();
    if (jobs_[parts_[part].job].failed) {
      parts_[part].reservation.Reset();
      continue;
    }
    fin_busy_ = true;
    Push(now_ + Sample(s_.finalize_time), EventKind::kFinDone, part);
  }
}

DispatchState Simulation::State() const {
  DispatchState st;
  st.queue_empty = synth_q_.empty();
  st.free_synthesis = free_synth_;
  st.in_synthesis = synthesizing_;
  st.gpu_queue = gpu_q_.size();
  st.max_run_ahead = s_.max_run_ahead;
  st.head = {s_.bytes_per_partition, s_.abc_bytes, false};
  return st;
}

// The pipeline's dispatcher on the virtual clock: the same DecideDispatch;
// the budget is asked with TryAcquire (the single dispatcher's blocking
// Acquire, which nothing else races for here, grants at the first release
// that makes the head fit: the next event).
void Simulation::Dispatch() {
  DispatchDecision d;
  for (;;) {
    DispatchState st = State();
    d = DecideDispatch(st);
    if (d.action == DispatchAction::kAskPacer) {
      pacer_.SetQueues(now_, gpu_q_.size(), synthesizing_);
      st.pacer = AskPacer(pacer_, now_);
      d = DecideDispatch(st);
    }
    if (d.action == DispatchAction::kWaitUntil && std::isfinite(d.wake_at_s)) {
      const double t = std::max(d.wake_at_s, now_ + 1e-9);
      if (wake_at_ <= now_ || t < wake_at_) {
        wake_at_ = t;
        Push(t, EventKind::kWake, 0);
      }
    }
    if (d.action != DispatchAction::kAcquireBudget) break;
    const uint32_t part = synth_q_.Top();
    Part& p = parts_[part];
    const Priority prio = jobs_[p.job].spec.priority;
    std::optional<memory::Reservation> res = budget_.TryAcquire(BudgetCharge(st.head, false), BudgetPriority(prio));
    st.budget_granted = res.has_value();
    d = DecideDispatch(st);
    if (d.action != DispatchAction::kDispatch) break;  // the budget holds the head; nobody behind it jumps the queue
    synth_q_.Pop();
    p.reservation = std::move(*res);
    --free_synth_;
    ++synthesizing_;
    pacer_.OnDispatch(now_);
    ++r_.partitions_dispatched;
    r_.dispatch_order.push_back({p.job, p.partition, prio, now_});
    Job& j = jobs_[p.job];
    if (j.result.first_dispatch_s < 0) j.result.first_dispatch_s = now_;
    Line("SYNTH_START", p.job, "partition=" + std::to_string(p.partition));
    synth_started_at_[part] = now_;
    Push(now_ + Sample(s_.synthesis_time), EventKind::kSynthDone, part);
  }
  pacer_.SetHeld(now_, d.pacer_held);
}

void Simulation::Schedule() {
  StartGpus();
  StartFinalizer();
  const uint64_t before = pacer_.rebootstraps();
  // What the pipeline held just before the dispatch decision (a re-bootstrap
  // must find it empty).
  uint32_t on_gpu = 0;
  for (int64_t b : gpu_busy_) on_gpu += b >= 0;
  const PacerState st = pacer_.State(now_);
  const SimRebootstrap snapshot{now_, st.in_flight, synthesizing_, gpu_q_.size(), on_gpu};
  Dispatch();
  if (pacer_.rebootstraps() != before) r_.rebootstrap_events.push_back(snapshot);
}

void Simulation::Handle(const Event& e) {
  switch (e.kind) {
    case EventKind::kArrival: Arrive(e.arg); break;
    case EventKind::kSynthDone: SynthDone(e.arg); break;
    case EventKind::kGpuDone: GpuDone(e.arg); break;
    case EventKind::kFinDone: FinDone(e.arg); break;
    case EventKind::kWake: break;
  }
}

SimResult Simulation::Run() {
  // Jobs numbered in submission order: by arrival time, ties in scenario order.
  std::vector<std::pair<double, SimJobSpec>> expanded;
  for (const auto& spec : s_.jobs)
    for (uint32_t c = 0; c < spec.count; ++c) expanded.push_back({spec.arrival_s + c * spec.interval_s, spec});
  std::stable_sort(expanded.begin(), expanded.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [t, spec] : expanded) {
    Job j;
    j.spec = spec;
    j.index = uint32_t(jobs_.size());
    j.fails.assign(spec.partitions, false);
    for (uint32_t f : spec.fail_partitions) j.fails[f] = true;
    j.result.job = j.index;
    j.result.priority = spec.priority;
    j.result.partitions = spec.partitions;
    j.result.arrival_s = t;
    Push(t, EventKind::kArrival, j.index);
    jobs_.push_back(std::move(j));
  }
  gpu_started_at_.assign(workers_, 0);
  r_.jobs_submitted = uint32_t(jobs_.size());
  while (!events_.empty()) {
    const double t = events_.top().t;
    if (t > s_.max_time_s) throw ScenarioError("simulation ran past max_time_s = " + std::to_string(s_.max_time_s));
    Integrate(t);
    now_ = t;
    while (!events_.empty() && events_.top().t == t) {
      Event e = events_.top();
      events_.pop();
      Handle(e);
    }
    Schedule();
  }
  for (const Job& j : jobs_)
    if (!j.done)
      throw ScenarioError("simulation stalled at t=" + std::to_string(now_) + " s with job " + std::to_string(j.index) +
                          " unfinished (" + std::to_string(synth_q_.size()) + " partitions pending)");
  SimResult r = std::move(r_);
  FinishResult(r);
  return r;
}

void Simulation::FinishResult(SimResult& r) {
  r.gpu_workers = workers_;
  r.rebootstraps = pacer_.rebootstraps();
  r.peak_reserved_bytes = budget_.peak();
  r.budget_bytes = budget_.capacity();
  r.final_reserved_bytes = budget_.reserved();
  r.pacer = pacer_.State(now_);
  for (const Job& j : jobs_) r.jobs.push_back(j.result);
  const double span = r.last_gpu_end_s - r.first_gpu_start_s;
  if (span > 0 && workers_ > 0) {
    r.gpu_utilization = r.gpu_busy_s / (span * workers_);
    r.mean_gpu_queue_depth = queue_depth_integral_ / span;
  }
  // Steady state: between the 10th-percentile GPU start and the 90th-percentile GPU end.
  if (gpu_intervals_.size() >= 10) {
    std::vector<double> starts, ends;
    for (auto& [a, b] : gpu_intervals_) {
      starts.push_back(a);
      ends.push_back(b);
    }
    std::sort(starts.begin(), starts.end());
    std::sort(ends.begin(), ends.end());
    const size_t n = gpu_intervals_.size();
    const double from = starts[n / 10], to = ends[n - 1 - n / 10];
    if (to > from) {
      double busy = 0;
      for (auto& [a, b] : gpu_intervals_) busy += std::max(0.0, std::min(b, to) - std::max(a, from));
      r.steady_gpu_utilization = busy / ((to - from) * workers_);
      r.steady_from_s = from;
      r.steady_to_s = to;
    }
  } else {
    r.steady_gpu_utilization = r.gpu_utilization;
    r.steady_from_s = r.first_gpu_start_s;
    r.steady_to_s = r.last_gpu_end_s;
  }
}

}  // namespace

SimResult Simulate(const SimScenario& scenario, const TimelineSink& sink) {
  Simulation sim(scenario, sink);
  return sim.Run();
}

nlohmann::json ResultToJson(const SimResult& r) {
  nlohmann::json j;
  j["gpu_utilization"] = r.gpu_utilization;
  j["steady_gpu_utilization"] = r.steady_gpu_utilization;
  j["steady_window_s"] = {r.steady_from_s, r.steady_to_s};
  j["gpu_busy_s"] = r.gpu_busy_s;
  j["gpu_workers"] = r.gpu_workers;
  j["gpu_idle_while_work_pending_s"] = r.gpu_idle_while_work_pending_s;
  j["pacer_throttled_while_starved_s"] = r.pacer_throttled_while_starved_s;
  j["pacer_throttled_during_bootstrap_s"] = r.pacer_throttled_during_bootstrap_s;
  j["budget_held_s"] = r.budget_held_s;
  j["rebootstraps"] = r.rebootstraps;
  auto& rb = j["rebootstrap_events"] = nlohmann::json::array();
  for (auto& e : r.rebootstrap_events)
    rb.push_back({{"t_s", e.t_s},
                  {"in_flight", e.in_flight},
                  {"synthesizing", e.synthesizing},
                  {"gpu_queue", e.gpu_queue},
                  {"on_gpu", e.on_gpu}});
  j["peak_reserved_bytes"] = r.peak_reserved_bytes;
  j["budget_bytes"] = r.budget_bytes;
  j["final_reserved_bytes"] = r.final_reserved_bytes;
  j["jobs_submitted"] = r.jobs_submitted;
  j["jobs_completed"] = r.jobs_completed;
  j["jobs_failed"] = r.jobs_failed;
  j["partitions_dispatched"] = r.partitions_dispatched;
  j["partitions_proved"] = r.partitions_proved;
  j["makespan_s"] = r.makespan_s;
  j["first_gpu_start_s"] = r.first_gpu_start_s;
  j["last_gpu_end_s"] = r.last_gpu_end_s;
  j["max_gpu_queue_depth"] = r.max_gpu_queue_depth;
  j["mean_gpu_queue_depth"] = r.mean_gpu_queue_depth;
  auto& jobs = j["jobs"] = nlohmann::json::array();
  for (auto& x : r.jobs)
    jobs.push_back({{"job", x.job},
                    {"priority", std::string(PriorityName(x.priority))},
                    {"partitions", x.partitions},
                    {"arrival_s", x.arrival_s},
                    {"first_dispatch_s", x.first_dispatch_s},
                    {"done_s", x.done_s},
                    {"status", x.status}});
  auto& order = j["dispatch_order"] = nlohmann::json::array();
  for (auto& d : r.dispatch_order)
    order.push_back({{"job", d.job},
                     {"partition", d.partition},
                     {"priority", std::string(PriorityName(d.priority))},
                     {"t_s", d.t_s}});
  const PacerState& p = r.pacer;
  j["pacer"] = {{"bootstrap", p.bootstrap},     {"calibrated", p.calibrated},     {"dispatched", p.dispatched},
                {"completions", p.completions}, {"ema_waiting", p.ema_waiting},   {"integral", p.integral},
                {"predicted", p.predicted},     {"synth_time_s", p.synth_time_s}, {"rate_mult", p.rate_mult},
                {"interval_s", p.interval_s},   {"gpu_time_s", p.gpu_time_s}};
  return j;
}

}  // namespace cuzk::scheduler
