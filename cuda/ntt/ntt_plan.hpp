#pragma once
// How a GPU NTT of size 2^log_n is cut into kernel launches. Plain C++ so the
// host emulation test (tests/gpu/ntt_emulation_test.cpp) replays exactly the
// launches the device runs.
//
// The transform is an in-place radix-2 decimation-in-frequency (Gentleman-
// Sande) network: stages u = log_n - 1 down to 0, each pairing index i with
// i + 2^u (bit u of i clear) as (x, y) -> (x + y, (x - y) w_{2^(u+1)}^(i mod 2^u)).
// Natural input gives bit-reversed output; a last pass (bit reversal) restores
// natural order. The stages are grouped into "DIF passes" of <= 10 stages:
// a pass covering stages s-1 .. s-t touches, for each group, the 2^t elements
// i = H 2^s + r 2^(s-t) + L (r < 2^t), which fit in shared memory; one block
// holds 2^log_cols groups with consecutive (H, L) so that global accesses come
// in runs of >= 2^log_cols elements. Inside a block the t stages run in
// "rounds" of radix_log stages whose 2^radix_log elements sit in registers.
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cuzk::cuda {

// Natural order in and out for all four (engine/poly/ntt.hpp conventions):
//   kForward        a_i <- sum_j a_j w^(ij), w = FrRootOfUnity(log n)
//   kInverse        a_i <- n^-1 sum_j a_j w^(-ij)
//   kCosetForward   a_j *= g^j, then kForward
//   kCosetInverse   kInverse, then a_j *= g^-j
enum class NttKind { kForward, kInverse, kCosetForward, kCosetInverse };

inline bool IsInverse(NttKind k) { return k == NttKind::kInverse || k == NttKind::kCosetInverse; }

// The largest supported transform (indices are 32-bit in the kernels, and
// the coset tables cover 2 x 14 bits).
inline constexpr unsigned kNttMaxLogN = 28;
// Stages per DIF pass: 2^10 elements of 32 bytes = 32 KiB per group.
inline constexpr unsigned kNttMaxPassStages = 10;
// Coset powers g^i are looked up as hi[i >> 14] * lo[i & (2^14 - 1)].
inline constexpr unsigned kNttCosetSplitBits = 14;
// Twiddles w^i are built as hi[i >> 13] * lo[i & (2^13 - 1)] (once per table).
inline constexpr unsigned kNttTwiddleSplitBits = 13;

struct NttKernelConfig {
  // Default: radix-4 rounds, 2^10 elements (32 KiB) and 256 threads per block,
  // 3 or 4 blocks per SM (narrow_forward); measured faster than radix-8 with
  // 2^11 elements (more independent work per thread, but 2 blocks per SM).
  unsigned radix_log = 2;                        // stages per register round (2 or 3): 2^radix_log elements per thread
  unsigned log_block_elems = 10;                 // elements per DIF block (shared memory: 32 bytes each)
  unsigned max_pass_stages = kNttMaxPassStages;  // smaller only in tests (more passes on small sizes)
  // Write the last DIF pass's output in natural order (and scaled) instead of
  // running a separate bit-reversal pass: one read+write of the data less,
  // but the transform then needs a scratch buffer of n elements.
  bool fuse_bit_reverse = true;
  // Skip the multiplications by twiddle 1 that are uniform over a block: all
  // of stage 0 (w_2^0) and, at radix 4, the half of stage 1 with w_4^0 (1.5
  // n/2 of the n/2 log_n multiplications: 6.25% at 2^24). Off only to measure it.
  bool skip_unit_stage = true;
  // Kernels compiled per direction (forward, inverse): the butterflies then
  // carry no run-time choice of subtraction order. Off only to measure it.
  bool specialize_direction = true;
  // Forward and coset-forward transforms with radix-4 kernels of 4 blocks
  // per SM and 64 registers (some spilled) instead of 3 blocks and 80: more
  // warps to hide the multiplications' latency, 2-3% faster from 2^22 up.
  // The inverse kernels (more live registers) were ~1% slower that way and
  // keep 3 blocks; 2 blocks of 96 registers were 10% slower (docs/perf/gpu.md).
  bool narrow_forward = true;
  // Threads per DIF block: one per register butterfly group of a full round.
  unsigned Threads() const { return 1u << (log_block_elems - radix_log); }
  void Validate() const {
    if (radix_log < 2 || radix_log > 3) throw std::invalid_argument("NttKernelConfig: radix_log must be 2 or 3");
    if (max_pass_stages < 1 || max_pass_stages > kNttMaxPassStages || log_block_elems < max_pass_stages ||
        log_block_elems > 11 || log_block_elems < radix_log || Threads() > 256) {
      throw std::invalid_argument(
          "NttKernelConfig: need 1 <= max_pass_stages <= 10, "
          "max(max_pass_stages, radix_log) <= log_block_elems <= 11, <= 256 threads per block");
    }
  }
};

// The register rounds of a pass of `stages` stages, top stages first (DIF
// order): fn(R, b) for a round over local stage bits b+R-1 .. b.
template <class Fn>
void ForEachRound(unsigned stages, unsigned radix_log, Fn&& fn) {
  for (unsigned top = stages; top > 0;) {
    const unsigned r = std::min(top, radix_log);
    fn(r, top - r);
    top -= r;
  }
}

struct NttPassPlan {
  unsigned log_sub = 0;   // s: the pass covers stages s-1 .. s-t
  unsigned stages = 0;    // t
  unsigned log_cols = 0;  // groups per block (log2)
  unsigned blocks = 0;
  unsigned threads = 0;
  size_t shared_bytes = 0;
};

struct BitReversePlan {
  unsigned tile_bits = 0;  // c: a tile is 2^c x 2^c elements; the middle log_n - 2c bits pick the tile
  unsigned blocks = 0;
  unsigned threads = 0;
  size_t shared_bytes = 0;
};

struct NttPlan {
  unsigned log_n = 0;
  unsigned num_passes = 0;
  std::array<NttPassPlan, 4> passes{};
  BitReversePlan bit_reverse;
};

// Shared memory of a bit-reversal block: two tiles, each two planes of 16-byte
// words, rows padded by one element against bank conflicts.
inline size_t BitReverseSharedBytes(unsigned tile_bits) {
  size_t side = size_t(1) << tile_bits;
  return 2 * 2 * side * (side + 1) * 16;
}

inline NttPlan MakeNttPlan(unsigned log_n, const NttKernelConfig& config) {
  config.Validate();
  if (log_n < 1 || log_n > kNttMaxLogN) {
    throw std::invalid_argument("NTT size 2^" + std::to_string(log_n) + " outside 2^1..2^" +
                                std::to_string(kNttMaxLogN));
  }
  NttPlan plan;
  plan.log_n = log_n;
  plan.num_passes = (log_n + config.max_pass_stages - 1) / config.max_pass_stages;
  if (plan.num_passes > plan.passes.size()) throw std::invalid_argument("NTT plan: too many passes for this config");
  const unsigned base = log_n / plan.num_passes, extra = log_n % plan.num_passes;
  unsigned s = log_n;
  for (unsigned i = 0; i < plan.num_passes; ++i) {
    NttPassPlan& p = plan.passes[i];
    p.log_sub = s;
    p.stages = base + (i < extra ? 1 : 0);
    const unsigned log_groups = log_n - p.stages;
    p.log_cols = std::min(config.log_block_elems - p.stages, log_groups);
    p.blocks = 1u << (log_groups - p.log_cols);
    const unsigned log_elems = p.stages + p.log_cols;
    p.threads = 1u << (log_elems > config.radix_log ? log_elems - config.radix_log : 0);
    p.shared_bytes = (size_t(1) << log_elems) * 32;
    s -= p.stages;
  }
  BitReversePlan& b = plan.bit_reverse;
  b.tile_bits = std::min(5u, log_n / 2);
  b.blocks = 1u << (log_n - 2 * b.tile_bits);
  b.threads = std::min(512u, 1u << (2 * b.tile_bits));
  b.shared_bytes = BitReverseSharedBytes(b.tile_bits);
  return plan;
}

}  // namespace cuzk::cuda
