#pragma once
// scheduler::DispatchPacer decides when the next partition may leave the
// SynthesisQueue, so that about `target` synthesized partitions wait in the
// GPU queue: enough that a GPU worker never waits, few enough that memory is
// not hoarded by finished a/b/c nobody is ready for.
//
// It is a pure state machine over a caller's clock (seconds as double), so the
// threaded pipeline (steady clock) and the simulator (virtual clock) run the
// same code. The caller reports events and asks MayDispatch before each
// dispatch; NextDeadline says when to ask again if nothing else happens.
//
// Control law (cuzk's, with its flaws fixed; ../shared/specs/cuzk-reference.md):
//   base      = ema(GPU time per partition, alpha) / gpu_workers        (feed-forward)
//   e         = (target - ema_waiting) / target                         (normalised error)
//   integral += e * dt, clamped to [integral_min, integral_max]          (asymmetric: little negative
//               wind-up, the cause of cuzk's drained pipeline; frozen during bootstrap and while the
//               caller says dispatch is held by the budget or by busy synthesis workers)
//   rate_mult = clamp(1 + kp*e + ki*integral, rate_mult_min, rate_mult_max)
//   interval  = clamp(base / rate_mult, interval_min_s, interval_max_s)
// Paced dispatches run on absolute deadlines (anchor + interval; a GPU
// completion changes the interval, never the anchor). ema_waiting is a
// per-unit-time EMA (time constant waiting_tau_s), not per event.
// Synthesis predictor (a Smith predictor for the synthesis dead time, which is
// 20-40 s against ~0.6 s of GPU per partition): the controlled quantity is
// not the GPU queue now but the queue one synthesis time ahead,
//   predicted = ema(waiting + synthesizing - ema_synth_time / gpu_eff_time)
// (what is in synthesis arrives, what the GPUs eat in that time leaves:
// Little's law). cuzk controlled the queue now, and with 30 s of dead time it
// oscillated: it throttled while 50 partitions were in flight, then starved.
// Starvation fill: while fewer than `target` partitions wait in the GPU queue,
// or the predicted queue is below target, the pacer never holds a dispatch
// back (after bootstrap); pacing applies only when both are at or above
// target. This is what keeps a starved pipeline from being throttled,
// whatever the integral says.
// Bootstrap: `target` dispatches bootstrap_spacing_s apart, then, until the
// first GPU time is measured, only the starvation fill (fewer than `target`
// partitions waiting for a GPU: dispatch; otherwise hold), so synthesis stays
// full through the first synthesis time instead of idling behind 8 partitions
// (issue 16; with fill_when_starved false, cuzk's hold: none until measured).
// initial_gpu_time_s > 0 (an estimate, e.g. from the key's size) ends
// bootstrap without a measurement. Re-bootstrap only when the pipeline is
// truly empty: ema_waiting < 1 and every dispatched partition completed, where
// failed, skipped and cancelled partitions count as completions (OnRetired).
#include <cstdint>
#include <string>

namespace cuzk::scheduler {

struct PacerConfig {
  double target = 8;  // partitions waiting in the GPU queue
  double kp = 0.5;
  double ki = 0.05;            // per second of normalised error
  double integral_min = -0.5;  // seconds x normalised error
  double integral_max = 2.0;
  double rate_mult_min = 0.3;
  double rate_mult_max = 3.0;
  double interval_min_s = 0.05;
  double interval_max_s = 60;
  double gpu_time_alpha = 0.2;  // EMA weight of a new GPU time measurement
  double waiting_tau_s = 5;     // time constant of ema_waiting
  double bootstrap_spacing_s = 0.1;
  double initial_gpu_time_s = 0;  // > 0: a known GPU time per partition; bootstrap need not wait for a measurement
  bool fill_when_starved = true;  // see above; false = pure PI pacing (cuzk's behaviour, for comparison)
  bool predict_synthesis = true;  // control the predicted queue (above); false = the queue now (cuzk)
  double synth_time_alpha = 0.2;  // EMA weight of a new synthesis time measurement

  // std::invalid_argument naming the first bad field.
  void Validate() const;
};

struct PacerState {
  bool bootstrap = true;
  bool calibrated = false;
  uint64_t rebootstraps = 0;
  uint64_t dispatched = 0;
  uint64_t completions = 0;  // GPU completions + retired partitions
  uint64_t in_flight = 0;    // dispatched - completions
  uint64_t waiting = 0;      // GPU queue depth now
  uint64_t synthesizing = 0;
  double ema_waiting = 0;
  double predicted = 0;     // EMA of the predicted queue (the controlled value)
  double synth_time_s = 0;  // EMA of synthesis time per partition
  double integral = 0;
  double rate_mult = 1;
  double interval_s = 0;
  double gpu_time_s = 0;  // EMA of GPU time per partition
  double gpu_eff_s = 0;   // ... divided by the GPU worker count
  double next_deadline_s = 0;
};

class DispatchPacer {
 public:
  DispatchPacer(PacerConfig config, unsigned gpu_workers, double now_s = 0);

  // The GPU queue depth or the number of partitions in synthesis changed.
  void SetQueues(double now_s, uint64_t waiting, uint64_t synthesizing);
  // A partition finished synthesis after `seconds`.
  void OnSynthDone(double now_s, double seconds);
  // The caller cannot dispatch for reasons of its own (budget full, no free
  // synthesis worker): the integral is frozen meanwhile (anti-windup).
  void SetHeld(double now_s, bool held);
  // May a partition be dispatched now? (May enter re-bootstrap.)
  bool MayDispatch(double now_s);
  // When MayDispatch can next turn true without another event; +infinity
  // while bootstrap waits for the first GPU measurement.
  double NextDeadline(double now_s);
  void OnDispatch(double now_s);
  void OnGpuComplete(double now_s, double gpu_seconds);
  // Dispatched partitions that will never complete on the GPU (failed,
  // skipped, cancelled): they count as completions.
  void OnRetired(double now_s, uint64_t n = 1);

  PacerState State(double now_s);
  bool in_bootstrap() const { return bootstrap_; }
  uint64_t rebootstraps() const { return rebootstraps_; }
  const PacerConfig& config() const { return config_; }

 private:
  void Advance(double now_s);
  double Interval() const;
  double Error() const;
  double PredictedNow() const;
  double RateMult() const;
  double Deadline() const { return anchor_ + Interval(); }
  bool TrulyEmpty() const { return dispatched_ <= completions_; }
  // The starvation fill's condition (fill_when_starved and a queue below target).
  bool Starved() const;
  void EnterBootstrap(double now_s);

  const PacerConfig config_;
  const unsigned gpu_workers_;
  const uint64_t bootstrap_count_;
  double last_t_;
  uint64_t waiting_ = 0;
  uint64_t synthesizing_ = 0;
  double ema_waiting_ = 0;
  double ema_predicted_ = 0;
  double synth_time_s_ = 0;
  bool synth_measured_ = false;
  double integral_ = 0;
  bool held_ = false;
  bool bootstrap_ = true;
  uint64_t bootstrap_sent_ = 0;
  double next_bootstrap_at_;
  bool calibrated_ = false;
  double gpu_time_s_ = 0;
  double anchor_;
  uint64_t dispatched_ = 0;
  uint64_t completions_ = 0;
  uint64_t rebootstraps_ = 0;
};

// "PACER,total=..,in_flight=..,waiting=..,ema_waiting=..,gpu_proc_ms=..,gpu_eff_ms=..,interval_ms=..,
// integral=..,rate_mult=..,bootstrap=..,rebootstraps=.." (the reference's status fields).
std::string FormatPacerStatus(const PacerState& s);

}  // namespace cuzk::scheduler
