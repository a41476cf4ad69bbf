#pragma once
// The scalars of Groth16's H MSM, from the a, b, c row evaluations, in the
// two layouts of HQueryForm (types.hpp has the derivation of the snarkjs one).
//
//   std::vector<ff::Fr> h = ComputeHScalars(pk.h_form, abc.a, abc.b, abc.c);
//   // h.size() == pk.h.size()
#include <cstdint>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/groth16/types.hpp"

namespace cuzk::groth16 {

// The primitive 2^log_n-th root of unity whose powers number the rows:
// bellperson 7^((r-1)/2^log_n), snarkjs (ffjavascript) 5^((r-1)/2^log_n).
ff::Fr DomainRootOfUnity(HQueryForm form, unsigned log_n);

// The odd k with 5^((r-1)/2^32) = (7^((r-1)/2^32))^k: ffjavascript's roots are
// powers of ours, w'_n = w_n^(k mod n) for every n = 2^j. An NTT with w' is an
// NTT with w followed by the index map i -> k i mod n; the snarkjs H path uses
// this to run on our (7-based) NTT. Computed once (Pohlig-Hellman, 32 steps).
uint64_t SnarkjsRootExponent();

// a, b, c: the evaluations of the A, B, C row polynomials on the domain, each
// exactly m = 2^k long (zero padded). They are consumed (used as scratch).
// Returns pk.h.size() scalars:
//   kBellperson:      H's coefficients 0..m-2 (bellperson: iFFT, coset FFT
//                     with 7, a*b - c, times (7^m - 1)^-1, inverse coset FFT,
//                     last coefficient dropped);
//   kSnarkjsOddCoset: P = a*b - c on the odd points g w'^j, j < m, in that order
//                     (snarkjs groth16_prove.js, no division).
// std::invalid_argument for sizes that are not one power of two.
std::vector<ff::Fr> ComputeHScalars(HQueryForm form, std::vector<ff::Fr>& a, std::vector<ff::Fr>& b,
                                    std::vector<ff::Fr>& c, unsigned threads = 0);

}  // namespace cuzk::groth16
