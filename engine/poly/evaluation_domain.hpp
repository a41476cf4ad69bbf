#pragma once
// EvaluationDomain: the radix-2 domain of size m that Groth16's H is computed
// on, with bellperson's EvaluationDomain conventions (bellperson 0.27,
// src/domain.rs), so that H matches the reference prover bit for bit:
//   omega = FrRootOfUnity(log m) = ROOT_OF_UNITY^(2^(32 - log m)),
//   coset generator g = 7 (Fr's multiplicative generator),
//   Z(x) = x^m - 1, which on the coset g<omega> is the constant g^m - 1.
//
// Usage (the Groth16 prover):
//   auto domain = poly::EvaluationDomain::ForSize(num_constraints);
//   a.resize(domain.size()); b.resize(...); c.resize(...);   // zero padded
//   domain.ComputeGroth16H(a, b, c);      // a <- H, coefficients 0..m-1
//   // the MSM uses a[0..m-2]; a[m-1] is always 0 for a satisfied circuit
#include <cstddef>
#include <span>

#include "engine/ff/fr.hpp"
#include "engine/poly/ntt.hpp"

namespace cuzk::poly {

class EvaluationDomain {
 public:
  // The smallest power of two >= min_size (at least 1), as bellperson's
  // from_coeffs picks it. std::invalid_argument beyond 2^27.
  static EvaluationDomain ForSize(size_t min_size);
  // m = 2^log_size, log_size <= 27 (std::invalid_argument otherwise).
  explicit EvaluationDomain(unsigned log_size);

  size_t size() const { return size_; }
  unsigned log_size() const { return log_size_; }
  const ff::Fr& omega() const { return omega_; }
  const ff::Fr& omega_inv() const { return omega_inv_; }
  const ff::Fr& size_inv() const { return size_inv_; }
  const ff::Fr& coset_generator() const { return coset_generator_; }
  const ff::Fr& coset_generator_inv() const { return coset_generator_inv_; }
  // Z(g x) = g^m - 1 for every x in the domain, and its inverse.
  const ff::Fr& z_on_coset() const { return z_on_coset_; }
  const ff::Fr& z_on_coset_inv() const { return z_on_coset_inv_; }

  // Z(tau) = tau^m - 1.
  ff::Fr EvaluateVanishing(const ff::Fr& tau) const;

  // bellperson's fft / ifft / coset_fft / icoset_fft. Every span must hold
  // exactly size() elements (std::invalid_argument otherwise).
  void Fft(std::span<ff::Fr> a, const NttOptions& options = {}) const;
  void Ifft(std::span<ff::Fr> a, const NttOptions& options = {}) const;
  void CosetFft(std::span<ff::Fr> a, const NttOptions& options = {}) const;
  void IcosetFft(std::span<ff::Fr> a, const NttOptions& options = {}) const;
  // Multiplies every element by (g^m - 1)^-1 (bellperson's divide_by_z_on_coset).
  void DivideByZOnCoset(std::span<ff::Fr> a, const NttOptions& options = {}) const;

  // Groth16's quotient polynomial, the sequence of bellperson's prover:
  //   a, b, c: ifft then coset_fft; a <- (a * b - c) / (g^m - 1); icoset_fft(a).
  // On return a holds H's m coefficients; b and c are clobbered (they hold the
  // coset evaluations of B and C). Same result, bit for bit, as calling the
  // steps above one by one, with fewer passes: ifft's 1/m and the coset's g^i
  // are one scaling, and 1/(g^m - 1) rides on icoset_fft's 1/m.
  // Cost: 3 inverse + 3 forward + 1 inverse NTT of size m; no allocation.
  void ComputeGroth16H(std::span<ff::Fr> a, std::span<ff::Fr> b, std::span<ff::Fr> c,
                       const NttOptions& options = {}) const;

 private:
  void CheckSpan(size_t n, const char* fn) const;

  unsigned log_size_;
  size_t size_;
  ff::Fr omega_, omega_inv_, size_inv_;
  ff::Fr coset_generator_, coset_generator_inv_;
  ff::Fr z_on_coset_, z_on_coset_inv_;
};

}  // namespace cuzk::poly
