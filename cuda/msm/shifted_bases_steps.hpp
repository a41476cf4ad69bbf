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
//    i) with the key |d| - 1 of one window and the value w stride + base (|
//    sign), so every window adds into one set of B buckets. Steps 2-6 then run
//    on that one window: one sort of the W n entries on c - 1 bits, one
//    running-sum reduction instead of W, and step 7 has nothing to combine.
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

// Step 1c'' for scalar i (shifted bases of `stride` points a window, base w
// stride + b = 2^(c w) P_b): entry (w, i) at w n + i, keyed by its bucket in
// the one window every digit adds into; a zero digit as (0, kNoBase),
// skipped by the accumulation. W stride < kNoBase: ShiftedBases' constructor
// checks it.
CUZK_HD void ShiftedDigitsStep(size_t i, size_t n, const Layout& layout, size_t stride, const Fr* canon,
                               const uint64_t* words, const uint32_t* ranks, uint32_t* keys, uint32_t* vals) {
  const uint32_t base = BaseIndex(i, words, ranks);
  uint32_t s[8];
  LoadCanonical(canon, i, s);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const int32_t d = NextSignedDigit(s, w, layout.window_bits, carry);
    const size_t at = size_t(w) * n + i;
    if (d == 0) {
      keys[at] = 0;
      vals[at] = kNoBase;
    } else {
      keys[at] = uint32_t(d < 0 ? -d : d) - 1;
      vals[at] = uint32_t(w * stride + base) | (d < 0 ? kSignBit : 0u);
    }
  }
}

}  // namespace cuzk::cuda::pippenger
