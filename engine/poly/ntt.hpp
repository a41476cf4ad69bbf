#pragma once
// Number-theoretic transforms over Fr on the CPU, sizes 2^0..2^27 (the field
// allows 2^32), multi-threaded. All transforms take and return natural order.
//
// Conventions (those of bellperson's EvaluationDomain, which Groth16's H
// computation must reproduce bit for bit):
//   Ntt:            a_i <- sum_j a_j w^(i j), w = FrRootOfUnity(log n)
//   InverseNtt:     a_i <- n^-1 sum_j a_j w^(-i j)
//   CosetNtt:       multiply a_j by g^j (g = shift, default 7), then Ntt:
//                   evaluations on the coset g * <w>
//   InverseCosetNtt: InverseNtt, then multiply a_j by g^-j
//
// In place: besides the array, a transform uses the shared twiddle cache
// (<= 1 MiB, built on first use) and, above 2^12, a 2^(floor(k/2)) * 256 byte
// buffer per thread (2 MiB at 2^27); sizes up to 2^12 run on the calling
// thread. Results do not depend on the thread count. Groth16's H pipeline is
// EvaluationDomain::ComputeGroth16H (evaluation_domain.hpp).
#include <span>

#include "engine/ff/fr.hpp"

namespace cuzk::poly {

struct NttOptions {
  unsigned threads = 0;  // 0 = all hardware threads
};

// a.size() must be a power of two <= 2^27 and a coset shift non-zero
// (std::invalid_argument otherwise).
void Ntt(std::span<ff::Fr> a, const NttOptions& options = {});
void InverseNtt(std::span<ff::Fr> a, const NttOptions& options = {});
void CosetNtt(std::span<ff::Fr> a, const NttOptions& options = {},
              ff::Fr shift = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator));
void InverseCosetNtt(std::span<ff::Fr> a, const NttOptions& options = {},
                     ff::Fr shift = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator));

// Permutes a into bit-reversed index order (an involution).
void BitReverse(std::span<ff::Fr> a, const NttOptions& options = {});

// O(n^2) reference DFT with the same convention as Ntt (for tests).
void NaiveDft(std::span<ff::Fr> a);

}  // namespace cuzk::poly
