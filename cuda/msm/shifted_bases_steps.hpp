#pragma once
// The per-thread steps of shifted bases (shifted_bases.hpp), host and device.
//  - The table: ShiftStep makes window w's points from window w - 1's (c
//    doublings), then fixed_base_steps.hpp's ToAffineStep makes them affine
//    (one inversion per group of kAffineGroup points by Montgomery's trick).
//    Per point and window: one affine doubling (4M + 2S) and c - 1 XYZZ
//    doublings (6M + 3S each), then ~8 + 576 / 16 for the conversion: ~240
//    multiplications at c = 22.
//  - Step 1c'' of the MSM (msm_steps.hpp's data flow, instead of 1c or 1c'):
//    ShiftedDigitsStep writes the window-major slots (entry (w, i) at w n +
//    i). With a full table (k = W copies) the key is |d| - 1 of one window
//    and the value w stride + base (| sign), so every window adds into one
//    set of B buckets: steps 2-6 run on that one window (one sort of the W n
//    entries on c - 1 bits, one running-sum reduction instead of W) and step
//    7 has nothing to combine. With k < W copies (2^(c j) P for j < k) window
//    w adds copy w mod k into bucket set w / k: ceil(W / k) sets, each
//    sorted apart on c - 1 bits and reduced, combined on the host with
//    shifts of c k bits.
#include <cstddef>
#include <cstdint>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/msm/msm_steps.hpp"
#include "cuda/msm/signed_digits.hpp"

namespace cuzk::cuda::pippenger {

// out[i] = 2^c in[i] (c >= 1; infinity stays infinity).
template <class F>
CUZK_HD void ShiftStep(size_t i, uint32_t c, const AffinePoint<F>* in, XyzzPoint<F>* out) {
  XyzzPoint<F> acc = XyzzPoint<F>::DoubleAffine(LoadPoint(in + i));
  for (uint32_t k = 1; k < c; ++k) acc = acc.Double();
  StorePoint(out + i, acc);
}

// Step 1c'' for scalar i (shifted bases of `copies` copies of `stride`
// points, base j stride + b = 2^(c j) P_b): entry (w, i) at w n + i, keyed by
// its bucket in set w / copies, valued with copy w mod copies; a zero digit
// as (the set's first bucket, kNoBase), skipped by the accumulation.
// copies stride < kNoBase: ShiftedBases' constructor checks it.
CUZK_HD void ShiftedDigitsStep(size_t i, size_t n, const Layout& layout, size_t stride, uint32_t copies,
                               const Fr* canon, const uint64_t* words, const uint32_t* ranks, uint32_t* keys,
                               uint32_t* vals) {
  const uint32_t base = BaseIndex(i, words, ranks);
  uint32_t s[8];
  LoadCanonical(canon, i, s);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const int32_t d = NextSignedDigit(s, w, layout.window_bits, carry);
    const size_t at = size_t(w) * n + i;
    const uint32_t set = w / copies, copy = w - set * copies;
    if (d == 0) {
      keys[at] = set * layout.buckets;
      vals[at] = kNoBase;
    } else {
      keys[at] = set * layout.buckets + uint32_t(d < 0 ? -d : d) - 1;
      vals[at] = uint32_t(copy * stride + base) | (d < 0 ? kSignBit : 0u);
    }
  }
}

}  // namespace cuzk::cuda::pippenger
