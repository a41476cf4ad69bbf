#pragma once
// The kernel launches of one NTT as parameter structs: which buffer each pass
// reads and writes, where coset powers and output scaling go. Host code shared
// by NttEngine (ntt.cu) and the host emulation test, so the test checks the
// exact sequence the GPU runs.
#include <array>

#include "cuda/ntt/ntt_phases.hpp"
#include "cuda/ntt/ntt_plan.hpp"

namespace cuzk::cuda::ntt_internal {

struct NttTablePointers {
  const Fr* twiddles = nullptr;  // w_N^i, i < N/2
  unsigned twiddle_log = 0;      // log N >= log n
  const Fr* coset_lo = nullptr;  // coset kinds only: forward s g^i, inverse s n^-1 g^-i (split tables)
  const Fr* coset_hi = nullptr;
};

struct NttRecipe {
  unsigned num_passes = 0;
  std::array<DifPassParams, 4> passes{};
  bool separate_bit_reverse = false;  // run BitReverseKernel after the passes
  BitReverseParams bit_reverse{};
  bool needs_scratch = false;  // the passes use `scratch` (n elements)
};

inline bool NeedsScratch(const NttPlan& plan, const NttKernelConfig& config) {
  return config.fuse_bit_reverse && plan.num_passes >= 2;
}

// Data flow with a fused bit reversal and >= 2 passes: data -> scratch (first
// pass, same positions), scratch in place, scratch -> data (last pass,
// bit-reversed positions). Otherwise every pass runs in place on data.
// output_scale: ScalarOutputScale's constant for the non-coset kinds (null: none).
inline NttRecipe MakeNttRecipe(const NttPlan& plan, const NttKernelConfig& config, NttKind kind, Fr* data, Fr* scratch,
                               const NttTablePointers& tables, const Fr* output_scale) {
  NttRecipe recipe;
  recipe.num_passes = plan.num_passes;
  recipe.needs_scratch = NeedsScratch(plan, config);
  OutputScale scale{};
  scale.mode = ScaleMode::kNone;
  if (output_scale != nullptr && (kind == NttKind::kInverse || kind == NttKind::kForward)) {
    scale.mode = ScaleMode::kScalar;
    scale.scale = *output_scale;
  } else if (kind == NttKind::kCosetInverse) {
    scale.mode = ScaleMode::kCoset;
    scale.lo = tables.coset_lo;
    scale.hi = tables.coset_hi;
  }
  Fr* work = recipe.needs_scratch ? scratch : data;
  for (unsigned i = 0; i < plan.num_passes; ++i) {
    const NttPassPlan& pass = plan.passes[i];
    const bool first = i == 0, last = i + 1 == plan.num_passes;
    DifPassParams& p = recipe.passes[i];
    p.src = first ? data : work;
    p.dst = last && config.fuse_bit_reverse ? data : work;
    p.twiddles = tables.twiddles;
    if (first && kind == NttKind::kCosetForward) {
      p.coset_lo = tables.coset_lo;
      p.coset_hi = tables.coset_hi;
    }
    p.log_n = plan.log_n;
    p.log_sub = pass.log_sub;
    p.stages = pass.stages;
    p.log_cols = pass.log_cols;
    p.twiddle_log = tables.twiddle_log;
    p.inverse = IsInverse(kind);
    p.bit_reverse_out = last && config.fuse_bit_reverse;
    p.skip_unit_stage = config.skip_unit_stage;
    p.scale = p.bit_reverse_out ? scale : OutputScale{ScaleMode::kNone, Fr::Zero(), nullptr, nullptr};
  }
  recipe.separate_bit_reverse = !config.fuse_bit_reverse;
  recipe.bit_reverse.data = data;
  recipe.bit_reverse.log_n = plan.log_n;
  recipe.bit_reverse.tile_bits = plan.bit_reverse.tile_bits;
  recipe.bit_reverse.scale = scale;
  return recipe;
}

}  // namespace cuzk::cuda::ntt_internal
