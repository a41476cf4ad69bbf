#pragma once
// The work of the NTT kernels, one function per phase between two block-wide
// barriers, written for both host and device (CUZK_HD). ntt.cu calls the
// phases from __global__ kernels with __syncthreads() between them; the host
// emulation test calls them in loops over blocks and threads, which is exact
// because within a phase no two threads touch the same shared element.
// Index arithmetic is 32-bit: n <= 2^28 (ntt_plan.hpp).
#include <cstdint>

#include "cuda/ff/fr.hpp"
#include "cuda/ntt/ntt_plan.hpp"

namespace cuzk::cuda::ntt_internal {

// 16 bytes, 16-byte aligned: one vector load/store (LDG.128/LDS.128) on the device.
struct alignas(16) Word4 {
  uint32_t x, y, z, w;
};

CUZK_HD Fr FrFromWords(const Word4& lo, const Word4& hi) {
  Fr r;
  r.limb(0) = lo.x, r.limb(1) = lo.y, r.limb(2) = lo.z, r.limb(3) = lo.w;
  r.limb(4) = hi.x, r.limb(5) = hi.y, r.limb(6) = hi.z, r.limb(7) = hi.w;
  return r;
}
CUZK_HD Word4 LowWords(const Fr& v) { return Word4{v.limb(0), v.limb(1), v.limb(2), v.limb(3)}; }
CUZK_HD Word4 HighWords(const Fr& v) { return Word4{v.limb(4), v.limb(5), v.limb(6), v.limb(7)}; }

// Global memory (16-byte aligned buffers: cudaMalloc gives 256).
CUZK_HD Fr LoadFr(const Fr* p) {
  const Word4* w = reinterpret_cast<const Word4*>(p);
  return FrFromWords(w[0], w[1]);
}
CUZK_HD void StoreFr(Fr* p, const Fr& v) {
  Word4* w = reinterpret_cast<Word4*>(p);
  w[0] = LowWords(v);
  w[1] = HighWords(v);
}
// Read-only tables (twiddles, coset powers): through the non-coherent cache.
CUZK_HD Fr LoadTable(const Fr* p) {
#if CUZK_DEVICE_PASS
  const uint4* w = reinterpret_cast<const uint4*>(p);
  uint4 a = __ldg(w), b = __ldg(w + 1);
  return FrFromWords(Word4{a.x, a.y, a.z, a.w}, Word4{b.x, b.y, b.z, b.w});
#else
  return LoadFr(p);
#endif
}

// Shared memory holds elements as two planes of 16-byte words (low and high
// halves): consecutive elements then hit consecutive bank groups.
struct SharedPlanes {
  Word4* lo;
  Word4* hi;
  CUZK_HD Fr Get(uint32_t e) const { return FrFromWords(lo[e], hi[e]); }
  CUZK_HD void Set(uint32_t e, const Fr& v) const {
    lo[e] = LowWords(v);
    hi[e] = HighWords(v);
  }
};

// Bit reversal of the low `bits` bits of x (bits <= 31).
CUZK_HD uint32_t ReverseBits(uint32_t x, uint32_t bits) {
  if (bits == 0) return 0;
#if CUZK_DEVICE_PASS
  return __brev(x) >> (32 - bits);
#else
  uint32_t r = 0;
  for (uint32_t i = 0; i < bits; ++i) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
#endif
}

// g^i from two tables: lo[i mod 2^14] * hi[i >> 14].
CUZK_HD Fr CosetFactor(const Fr* lo, const Fr* hi, uint32_t i) {
  return LoadTable(lo + (i & ((1u << kNttCosetSplitBits) - 1))) * LoadTable(hi + (i >> kNttCosetSplitBits));
}

// ---------------------------------------------------------------------------
// DIF pass: stages s-1 .. s-t over groups of 2^t elements (see ntt_plan.hpp).

enum class ScaleMode : uint32_t { kNone = 0, kScalar = 1, kCoset = 2 };

// Multiplies natural-order outputs: by n^-1 (inverse) or by n^-1 g^-i (inverse coset).
struct OutputScale {
  ScaleMode mode;
  Fr scale;      // kScalar
  const Fr* lo;  // kCoset: output i times lo[i & mask] * hi[i >> 14] (hi includes n^-1)
  const Fr* hi;
};

CUZK_HD Fr ScaleOutput(const OutputScale& s, const Fr& v, uint32_t i) {
  if (s.mode == ScaleMode::kScalar) return v * s.scale;
  if (s.mode == ScaleMode::kCoset) return v * CosetFactor(s.lo, s.hi, i);
  return v;
}

struct DifPassParams {
  const Fr* src;       // read from here ...
  Fr* dst;             // ... write here (may equal src: in place)
  const Fr* twiddles;  // w_N^i for i < N/2, N = 2^twiddle_log >= n
  const Fr* coset_lo;  // non-null: multiply element i by g^i while loading (first pass of a coset NTT)
  const Fr* coset_hi;
  uint32_t log_n;
  uint32_t log_sub;   // s
  uint32_t stages;    // t
  uint32_t log_cols;  // groups per block (log2)
  uint32_t twiddle_log;
  uint32_t inverse;          // use w^-1: w_N^-i = -w_N^(N/2 - i)
  uint32_t bit_reverse_out;  // last pass only (s = t): write natural order, scaled by `scale`
  uint32_t skip_unit_stage;  // butterflies with twiddle 1 for the whole block (DifRound): no multiplication
  OutputScale scale;
};

// Position q of the block's staging order -> global index and shared slot.
// Shared slot of (group col, element r) is r * cols + col. Staging order
// follows global memory: column-fastest when the block's groups are
// consecutive L within one H, plain linear when the block spans whole H-blocks.
CUZK_HD void StagedIndex(const DifPassParams& p, uint32_t block, uint32_t q, uint32_t& global, uint32_t& slot) {
  const uint32_t t = p.stages, log_m = p.log_sub - t, cols_mask = (1u << p.log_cols) - 1;
  uint32_t r, col;
  if (log_m >= p.log_cols) {
    r = q >> p.log_cols;
    col = q & cols_mask;
    const uint32_t g = (block << p.log_cols) | col;
    global = ((g >> log_m) << p.log_sub) | (r << log_m) | (g & ((1u << log_m) - 1));
  } else {
    global = (block << (p.log_cols + t)) + q;
    r = (q >> log_m) & ((1u << t) - 1);
    col = ((q >> p.log_sub) << log_m) | (q & ((1u << log_m) - 1));
  }
  slot = (r << p.log_cols) | col;
}

// The last pass with fused bit reversal takes the groups (contiguous blocks of
// 2^t) H = block + col 2^(log_n - t - c): their bit-reversed positions
// rev(H) = rev(block) 2^c + rev_c(col) are consecutive, so for each r the
// block writes C = 2^c consecutive outputs:
//   out(H, r) = rev_t(r) 2^(log_n - t) + rev_(log_n - t)(H).
// Loads stay contiguous within each group. The output overlaps other
// blocks' inputs: this pass must not run in place (unless it is the only
// block).
CUZK_HD void LoadIndex(const DifPassParams& p, uint32_t block, uint32_t q, uint32_t& global, uint32_t& slot) {
  if (p.bit_reverse_out) {
    const uint32_t t = p.stages, col = q >> t, r = q & ((1u << t) - 1);
    global = ((block | (col << (p.log_n - t - p.log_cols))) << t) | r;
    slot = (r << p.log_cols) | col;
  } else {
    StagedIndex(p, block, q, global, slot);
  }
}

CUZK_HD void StoreIndex(const DifPassParams& p, uint32_t block, uint32_t q, uint32_t& global, uint32_t& slot) {
  if (p.bit_reverse_out) {
    const uint32_t c = p.log_cols, t = p.stages;
    const uint32_t r = q >> c, j = q & ((1u << c) - 1);
    slot = (r << c) | ReverseBits(j, c);
    global = (ReverseBits(r, t) << (p.log_n - t)) | (ReverseBits(block, p.log_n - t - c) << c) | j;
  } else {
    StagedIndex(p, block, q, global, slot);
  }
}

// Coset powers or output scaling: multiplications in the load/store phases
// that most passes do not need. Kernels are instantiated with and without
// them (kScaling) so the plain passes carry no extra registers for them.
CUZK_HD bool PassScales(const DifPassParams& p) {
  return p.coset_lo != nullptr || (p.bit_reverse_out && p.scale.mode != ScaleMode::kNone);
}

template <bool kScaling = true>
CUZK_HD void DifLoad(const DifPassParams& p, uint32_t block, uint32_t tid, uint32_t nthreads, const SharedPlanes& sm) {
  const uint32_t elems = 1u << (p.stages + p.log_cols);
  for (uint32_t q = tid; q < elems; q += nthreads) {
    uint32_t global, slot;
    LoadIndex(p, block, q, global, slot);
    Fr v = LoadFr(p.src + global);
    if constexpr (kScaling) {
      if (p.coset_lo != nullptr) v = v * CosetFactor(p.coset_lo, p.coset_hi, global);
    }
    sm.Set(slot, v);
  }
}

template <bool kScaling = true>
CUZK_HD void DifStore(const DifPassParams& p, uint32_t block, uint32_t tid, uint32_t nthreads, const SharedPlanes& sm) {
  const uint32_t elems = 1u << (p.stages + p.log_cols);
  for (uint32_t q = tid; q < elems; q += nthreads) {
    uint32_t global, slot;
    StoreIndex(p, block, q, global, slot);
    Fr v = sm.Get(slot);
    if constexpr (kScaling) {
      if (p.bit_reverse_out) v = ScaleOutput(p.scale, v, global);
    }
    StoreFr(p.dst + global, v);
  }
}

// One register round: local stages (bits of r) b+R-1 .. b. Each work item is
// one group column and one setting of the r bits outside [b, b+R); it loads
// its 2^R elements, runs R stages and writes them back.
//
// Twiddle of the pair (r, r + 2^lu) at global stage u = lu + s - t:
//   w_{2^(u+1)}^j, j = i mod 2^u = (r mod 2^lu) 2^(s-t) + L,
// looked up as twiddles[j << (twiddle_log - u - 1)].
//
// kDirection: kDifForward or kDifInverse compile one direction (the kernels:
// no per-butterfly select between the two subtraction orders), kDifRuntime
// reads p.inverse (the host emulation, and the reference variant).
constexpr int kDifForward = 0, kDifInverse = 1, kDifRuntime = 2;

template <int R, int kDirection = kDifRuntime>
CUZK_HD void DifRound(const DifPassParams& p, uint32_t block, uint32_t tid, uint32_t nthreads, const SharedPlanes& sm,
                      uint32_t b) {
  const bool inverse = kDirection == kDifRuntime ? p.inverse != 0 : kDirection == kDifInverse;
  const uint32_t t = p.stages, log_m = p.log_sub - t;
  const uint32_t cols_mask = (1u << p.log_cols) - 1;
  const uint32_t items = 1u << (t - R + p.log_cols);
  const uint32_t half_table = 1u << (p.twiddle_log - 1);
  for (uint32_t item = tid; item < items; item += nthreads) {
    const uint32_t col = item & cols_mask;
    const uint32_t rho = item >> p.log_cols;
    const uint32_t r_base = (rho & ((1u << b) - 1)) | ((rho >> b) << (b + R));
    const uint32_t L = ((block << p.log_cols) | col) & ((1u << log_m) - 1);
    Fr x[1 << R];
    CUZK_UNROLL
    for (int v = 0; v < (1 << R); ++v) x[v] = sm.Get(((r_base | (uint32_t(v) << b)) << p.log_cols) | col);
    CUZK_UNROLL
    for (int pb = R - 1; pb >= 0; --pb) {
      const uint32_t lu = b + uint32_t(pb);
      const uint32_t u = lu + log_m;
      const uint32_t shift = p.twiddle_log - u - 1;
      CUZK_UNROLL
      for (int sub = 0; sub < (1 << pb); ++sub) {
        const uint32_t rmod = (r_base & ((1u << lu) - 1)) | (uint32_t(sub) << b);
        const uint32_t i = ((rmod << log_m) | L) << shift;
        // In the last pass (log_m = 0: L = 0) its last round (b = 0: the low
        // bits of r_base are 0) has i = sub << shift for every thread, so
        // sub = 0 means twiddle 1 uniformly: all of stage 0 and half of
        // stage 1 at radix 4 (3/4 of that round's butterflies).
        const bool unit = p.skip_unit_stage && log_m == 0 && b == 0 && sub == 0;
        // Inverse: w^-i = -w^(N/2 - i) for i > 0, folded into the subtraction order.
        const bool mirrored = inverse && i != 0;
        const uint32_t ti = inverse ? ((half_table - i) & (half_table - 1)) : i;
        const Fr w = unit ? Fr::One() : LoadTable(p.twiddles + ti);
        CUZK_UNROLL
        for (int hi = 0; hi < (1 << (R - 1 - pb)); ++hi) {
          const int v0 = (hi << (pb + 1)) | sub, v1 = v0 | (1 << pb);
          const Fr sum = x[v0] + x[v1];
          const Fr diff = mirrored ? x[v1] - x[v0] : x[v0] - x[v1];
          x[v0] = sum;
          x[v1] = unit ? diff : diff * w;
        }
      }
    }
    CUZK_UNROLL
    for (int v = 0; v < (1 << R); ++v) sm.Set(((r_base | (uint32_t(v) << b)) << p.log_cols) | col, x[v]);
  }
}

// ---------------------------------------------------------------------------
// Bit reversal with optional scaling, in place. Index i = (hi: c bits,
// mid: log_n - 2c bits, lo: c bits); rev(i) = (rev lo, rev mid, rev hi). The
// block for mid m also owns m' = rev(m): it loads both tiles, then writes
// out[(hi, m', lo)] = tileA[rev lo][rev hi] and out[(hi, m, lo)] = tileB[...].

struct BitReverseParams {
  Fr* data;
  uint32_t log_n;
  uint32_t tile_bits;
  OutputScale scale;
};

struct BitReverseTiles {
  SharedPlanes a, b;
};

CUZK_HD BitReverseTiles MakeBitReverseTiles(Word4* smem, uint32_t tile_bits) {
  const uint32_t words = (1u << tile_bits) * ((1u << tile_bits) + 1);
  return BitReverseTiles{SharedPlanes{smem, smem + words}, SharedPlanes{smem + 2 * words, smem + 3 * words}};
}

// False when the partner block (rev(m) < m) does this block's work.
CUZK_HD bool BitReverseOwnsBlock(const BitReverseParams& p, uint32_t block) {
  return ReverseBits(block, p.log_n - 2 * p.tile_bits) >= block;
}

CUZK_HD void BitReverseLoad(const BitReverseParams& p, uint32_t block, uint32_t tid, uint32_t nthreads,
                            const BitReverseTiles& tiles) {
  const uint32_t c = p.tile_bits, side = 1u << c, stride = side + 1;
  const uint32_t m = block, m2 = ReverseBits(block, p.log_n - 2 * c);
  for (uint32_t q = tid; q < side * side; q += nthreads) {
    const uint32_t hi = q >> c, lo = q & (side - 1);
    tiles.a.Set(hi * stride + lo, LoadFr(p.data + ((hi << (p.log_n - c)) | (m << c) | lo)));
    if (m2 != m) tiles.b.Set(hi * stride + lo, LoadFr(p.data + ((hi << (p.log_n - c)) | (m2 << c) | lo)));
  }
}

CUZK_HD void BitReverseStore(const BitReverseParams& p, uint32_t block, uint32_t tid, uint32_t nthreads,
                             const BitReverseTiles& tiles) {
  const uint32_t c = p.tile_bits, side = 1u << c, stride = side + 1;
  const uint32_t m = block, m2 = ReverseBits(block, p.log_n - 2 * c);
  for (uint32_t q = tid; q < side * side; q += nthreads) {
    const uint32_t hi = q >> c, lo = q & (side - 1);
    const uint32_t src = ReverseBits(lo, c) * stride + ReverseBits(hi, c);
    const uint32_t out_a = (hi << (p.log_n - c)) | (m2 << c) | lo;
    StoreFr(p.data + out_a, ScaleOutput(p.scale, tiles.a.Get(src), out_a));
    if (m2 != m) {
      const uint32_t out_b = (hi << (p.log_n - c)) | (m << c) | lo;
      StoreFr(p.data + out_b, ScaleOutput(p.scale, tiles.b.Get(src), out_b));
    }
  }
}

// Twiddle table: out[i] = lo[i mod 2^13] * hi[i >> 13] for i < count.
CUZK_HD void BuildTwiddle(Fr* out, const Fr* lo, const Fr* hi, uint32_t i) {
  StoreFr(out + i, LoadFr(lo + (i & ((1u << kNttTwiddleSplitBits) - 1))) * LoadFr(hi + (i >> kNttTwiddleSplitBits)));
}

}  // namespace cuzk::cuda::ntt_internal
