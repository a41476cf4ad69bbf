#include "scheduler/dispatch_pacer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace cuzk::scheduler {

void PacerConfig::Validate() const {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("pacer: ") + what);
  };
  auto finite = [](double v) { return std::isfinite(v); };
  require(finite(target) && target >= 1, "target must be >= 1");
  require(finite(kp) && kp >= 0, "kp must be >= 0");
  require(finite(ki) && ki >= 0, "ki must be >= 0");
  require(finite(integral_min) && finite(integral_max) && integral_min <= 0 && integral_max >= 0,
          "integral_min must be <= 0 <= integral_max");
  require(finite(rate_mult_min) && rate_mult_min > 0 && finite(rate_mult_max) && rate_mult_max >= rate_mult_min,
          "rate_mult_min must be > 0 and <= rate_mult_max");
  require(finite(interval_min_s) && interval_min_s > 0 && finite(interval_max_s) && interval_max_s >= interval_min_s,
          "interval_min_s must be > 0 and <= interval_max_s");
  require(finite(gpu_time_alpha) && gpu_time_alpha > 0 && gpu_time_alpha <= 1, "gpu_time_alpha must be in (0, 1]");
  require(finite(waiting_tau_s) && waiting_tau_s > 0, "waiting_tau_s must be > 0");
  require(finite(bootstrap_spacing_s) && bootstrap_spacing_s >= 0, "bootstrap_spacing_s must be >= 0");
  require(finite(synth_time_alpha) && synth_time_alpha > 0 && synth_time_alpha <= 1,
          "synth_time_alpha must be in (0, 1]");
  require(finite(initial_gpu_time_s) && initial_gpu_time_s >= 0, "initial_gpu_time_s must be >= 0");
}

DispatchPacer::DispatchPacer(PacerConfig config, unsigned gpu_workers, double now_s)
    : config_(config),
      gpu_workers_(std::max(1u, gpu_workers)),
      bootstrap_count_(uint64_t(std::llround(config.target))),
      last_t_(now_s),
      next_bootstrap_at_(now_s),
      anchor_(now_s) {
  config_.Validate();
  if (config_.initial_gpu_time_s > 0) {
    calibrated_ = true;
    gpu_time_s_ = config_.initial_gpu_time_s;
  }
}

void DispatchPacer::Advance(double now_s) {
  const double dt = now_s - last_t_;
  if (!(dt > 0)) return;
  last_t_ = now_s;
  // The queue held `waiting_` over [last, now]: exact EMA of a step input.
  const double w = 1 - std::exp(-dt / config_.waiting_tau_s);
  ema_waiting_ += w * (double(waiting_) - ema_waiting_);
  ema_predicted_ += w * (PredictedNow() - ema_predicted_);
  if (bootstrap_ || held_) return;
  integral_ = std::clamp(integral_ + Error() * dt, config_.integral_min, config_.integral_max);
}

double DispatchPacer::PredictedNow() const {
  if (!config_.predict_synthesis) return double(waiting_);
  double p = double(waiting_) + double(synthesizing_);
  if (calibrated_ && synth_measured_ && gpu_time_s_ > 0) p -= synth_time_s_ / (gpu_time_s_ / double(gpu_workers_));
  return p;
}

double DispatchPacer::Error() const {
  const double controlled = config_.predict_synthesis ? ema_predicted_ : ema_waiting_;
  return (config_.target - controlled) / config_.target;
}

double DispatchPacer::RateMult() const {
  return std::clamp(1 + config_.kp * Error() + config_.ki * integral_, config_.rate_mult_min, config_.rate_mult_max);
}

double DispatchPacer::Interval() const {
  if (!calibrated_) return config_.interval_max_s;
  const double base = gpu_time_s_ / double(gpu_workers_);
  return std::clamp(base / RateMult(), config_.interval_min_s, config_.interval_max_s);
}

void DispatchPacer::SetQueues(double now_s, uint64_t waiting, uint64_t synthesizing) {
  Advance(now_s);
  waiting_ = waiting;
  synthesizing_ = synthesizing;
}

void DispatchPacer::OnSynthDone(double now_s, double seconds) {
  Advance(now_s);
  if (!(seconds >= 0) || !std::isfinite(seconds)) return;
  synth_time_s_ =
      synth_measured_ ? config_.synth_time_alpha * seconds + (1 - config_.synth_time_alpha) * synth_time_s_ : seconds;
  synth_measured_ = true;
}

void DispatchPacer::SetHeld(double now_s, bool held) {
  Advance(now_s);
  held_ = held;
}

void DispatchPacer::EnterBootstrap(double now_s) {
  bootstrap_ = true;
  bootstrap_sent_ = 0;
  next_bootstrap_at_ = now_s;
  integral_ = 0;  // whatever wound up before the drain says nothing about what follows
}

bool DispatchPacer::MayDispatch(double now_s) {
  Advance(now_s);
  if (bootstrap_) {
    if (bootstrap_sent_ < bootstrap_count_) return now_s >= next_bootstrap_at_;
    if (calibrated_) {
      bootstrap_ = false;
      anchor_ = now_s;
    } else if (TrulyEmpty()) {
      // Every bootstrap partition failed or was cancelled: no measurement will come.
      EnterBootstrap(now_s);
      ++rebootstraps_;
      return true;
    } else {
      // No GPU time yet, so no interval to pace by. Holding everything until
      // the first measurement left both GPU workers idle for 14.7 s between
      // 24 and 43 s of issue 7's example (whole-span utilization 0.86, 0.998
      // with this; scheduler/README.md): the first GPU time comes one
      // synthesis time (20-40 s) after bootstrap, and what is dispatched only
      // then arrives another synthesis time later. The starvation fill needs
      // no GPU time, so it applies here as after calibration. What it costs
      // is memory at the start: up to every free synthesis thread's
      // partition, not `target` of them; the budget and max_run_ahead still
      // gate every dispatch, and once `target` partitions wait for a GPU,
      // nothing more leaves until a measurement.
      return Starved();
    }
  } else if (ema_waiting_ < 1 && TrulyEmpty()) {
    EnterBootstrap(now_s);
    ++rebootstraps_;
    return true;
  }
  if (Starved()) return true;
  return now_s >= Deadline();
}

bool DispatchPacer::Starved() const {
  return config_.fill_when_starved &&
         (double(waiting_) < config_.target || (config_.predict_synthesis && PredictedNow() < config_.target));
}

double DispatchPacer::NextDeadline(double now_s) {
  Advance(now_s);
  if (bootstrap_) {
    if (bootstrap_sent_ < bootstrap_count_) return next_bootstrap_at_;
    if (!calibrated_) return std::numeric_limits<double>::infinity();
    return now_s;
  }
  return Deadline();
}

void DispatchPacer::OnDispatch(double now_s) {
  Advance(now_s);
  ++dispatched_;
  if (bootstrap_) {
    ++bootstrap_sent_;
    next_bootstrap_at_ = now_s + config_.bootstrap_spacing_s;
    anchor_ = now_s;
    return;
  }
  const double interval = Interval();
  const double deadline = anchor_ + interval;
  if (now_s >= deadline) {
    // Paced: keep the absolute schedule unless we are more than an interval late (no catch-up burst).
    anchor_ = now_s - deadline <= interval ? deadline : now_s;
  } else {
    anchor_ = now_s;  // a starvation fill; the paced schedule resumes from it
  }
}

void DispatchPacer::OnGpuComplete(double now_s, double gpu_seconds) {
  Advance(now_s);
  ++completions_;
  if (gpu_seconds >= 0 && std::isfinite(gpu_seconds)) {
    gpu_time_s_ =
        calibrated_ ? config_.gpu_time_alpha * gpu_seconds + (1 - config_.gpu_time_alpha) * gpu_time_s_ : gpu_seconds;
    calibrated_ = true;
  }
  if (bootstrap_ && bootstrap_sent_ >= bootstrap_count_) {
    bootstrap_ = false;
    anchor_ = now_s;
  }
}

void DispatchPacer::OnRetired(double now_s, uint64_t n) {
  Advance(now_s);
  completions_ += n;
}

PacerState DispatchPacer::State(double now_s) {
  Advance(now_s);
  PacerState s;
  s.bootstrap = bootstrap_;
  s.calibrated = calibrated_;
  s.rebootstraps = rebootstraps_;
  s.dispatched = dispatched_;
  s.completions = completions_;
  s.in_flight = dispatched_ > completions_ ? dispatched_ - completions_ : 0;
  s.waiting = waiting_;
  s.synthesizing = synthesizing_;
  s.ema_waiting = ema_waiting_;
  s.predicted = ema_predicted_;
  s.synth_time_s = synth_time_s_;
  s.integral = integral_;
  s.rate_mult = RateMult();
  s.interval_s = Interval();
  s.gpu_time_s = gpu_time_s_;
  s.gpu_eff_s = gpu_time_s_ / double(gpu_workers_);
  s.next_deadline_s = NextDeadline(now_s);
  return s;
}

std::string FormatPacerStatus(const PacerState& s) {
  char buf[384];
  std::snprintf(
      buf, sizeof buf,
      "PACER,total=%llu,in_flight=%llu,waiting=%llu,ema_waiting=%.2f,gpu_proc_ms=%.0f,gpu_eff_ms=%.0f,"
      "ema_synth_ms=%.0f,predicted=%.2f,interval_ms=%.0f,integral=%.3f,rate_mult=%.3f,bootstrap=%d,rebootstraps=%llu",
      (unsigned long long)s.dispatched, (unsigned long long)s.in_flight, (unsigned long long)s.waiting, s.ema_waiting,
      s.gpu_time_s * 1e3, s.gpu_eff_s * 1e3, s.synth_time_s * 1e3, s.predicted, s.interval_s * 1e3, s.integral,
      s.rate_mult, s.bootstrap ? 1 : 0, (unsigned long long)s.rebootstraps);
  return buf;
}

}  // namespace cuzk::scheduler
