#pragma once
// Groth16's H on the device for bellperson keys, in six NTTs instead of
// bellperson's seven.
//
// A, B, C are the polynomials of degree < m with A(w^i) = a_i etc.;
// h = (A B - C) / Z with Z(x) = x^m - 1, which takes the single value g^m - 1
// on the coset g w^i. bellperson evaluates A, B and C on the coset (two NTTs
// each) and takes the coset inverse of (A B - C) / (g^m - 1): seven NTTs. The
// coset inverse of the product alone gives R = A B mod (x^m - g^m), the
// polynomial of degree < m that equals A B on the coset; R - C and
// (g^m - 1) h agree on the m coset points and both have degree < m, so
//   h = (R - C) (g^m - 1)^-1,
// and C is needed only as coefficients: its inverse NTT alone. The identity
// holds for any a, b, c (satisfied or not), so h is bellperson's to the bit,
// and proofs are unchanged. Saves one transform (2^27: ~47 ms of a 32 GiB
// partition) for one more memory pass (~3 ms).
//
// The constants ride on multiplications the transforms make anyway
// (HScales, NttOptions::scale): the inverse NTTs of a, b and c skip their
// m^-1 (raw sums, m A etc.), the coset NTTs of a and b take it with their
// coset powers, the coset inverse of the product keeps only g^-i (m R), and
// the difference multiplies (m R - m C) by m^-1 (g^m - 1)^-1. Three
// multiplications an element fewer than each transform scaling on its own
// (~11 -> 8 beside ~68 in the butterflies; model: ~1.2 ms of an 8 MiB
// partition, ~10 ms of a 32 GiB one, not yet timed).
//
//   for k in 0..2: EnqueueHTransform(ntt, k, abc[k], m, stream[k]);
//   (stream 0 waits for the others)
//   EnqueueHCombine(ntt, abc[0], abc[1], abc[2], m, stream[0]);  // h in abc[0]
#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/ntt/ntt.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::cuda {

// (g^m - 1)^-1 for the coset generator g = 7 (NttOptions' default shift).
inline ff::Fr ZOnCosetInverse(size_t m) {
  ff::Fr g_m = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator);
  for (size_t i = 1; i < m; i <<= 1) g_m = g_m.Square();
  return (g_m - ff::Fr::One()).Inverse();
}

// NttOptions::scale of each transform of the six-NTT order, and the
// difference's factor (host values; the host test replays them).
struct HScales {
  ff::Fr inverse;        // a, b, c: m, the raw inverse sums (no multiplication)
  ff::Fr coset_forward;  // a, b: m^-1, with the coset powers
  ff::Fr coset_inverse;  // a b: m, g^-i alone
  ff::Fr difference;     // m^-1 (g^m - 1)^-1
};
inline HScales MakeHScales(size_t m) {
  const ff::Fr size = ff::Fr::FromUint64(m), size_inverse = size.Inverse();
  return {size, size_inverse, size, size_inverse * ZOnCosetInverse(m)};
}

// Vector k of a, b, c (0, 1, 2; m device elements, ff::Fr layout, Montgomery
// form, in place): a and b to their coset evaluations (inverse NTT, coset
// NTT), c to m times its coefficients (inverse NTT without m^-1).
void EnqueueHTransform(NttEngine& ntt, int k, ff::Fr* vector, size_t m, cudaStream_t stream);

// After the three transforms: a <- (m coset-iNTT(a b) - c) m^-1 (g^m - 1)^-1,
// the m coefficients of h (bellperson keys use the first m - 1). b and c are read.
void EnqueueHCombine(NttEngine& ntt, ff::Fr* a, const ff::Fr* b, const ff::Fr* c, size_t m, cudaStream_t stream);

// bellperson's seven NTTs on one stream (a, b, c each to the coset;
// (a b - c) (g^m - 1)^-1; the coset inverse into a; b and c are overwritten):
// the same h, kept as the reference the six-NTT order is timed against
// (cuzk-gpu-bench h) and checked equal to (groth16_gpu_test).
void EnqueueHSevenNtts(NttEngine& ntt, ff::Fr* a, ff::Fr* b, ff::Fr* c, size_t m, cudaStream_t stream);

}  // namespace cuzk::cuda
