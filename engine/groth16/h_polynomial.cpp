#include "engine/groth16/h_polynomial.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "engine/poly/evaluation_domain.hpp"
#include "engine/poly/ntt.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::groth16 {

using ff::Fr;

namespace {

constexpr uint64_t kSnarkjsNonResidue = 5;  // ffjavascript's nqr for BLS12-381's r

Fr RootOf(uint64_t generator, unsigned log_n) {
  if (log_n > ff::kFrTwoAdicity) throw std::invalid_argument("DomainRootOfUnity: domain larger than 2^32");
  ff::Limbs<4> e = ff::SubSmall(Fr::kModulus, 1);
  for (unsigned i = 0; i < log_n; ++i) e = ff::ShiftRight1(e);
  return Fr::FromUint64(generator).Pow(e);
}

}  // namespace

Fr DomainRootOfUnity(HQueryForm form, unsigned log_n) {
  return form == HQueryForm::kBellperson ? ff::FrRootOfUnity(log_n) : RootOf(kSnarkjsNonResidue, log_n);
}

uint64_t SnarkjsRootExponent() {
  static const uint64_t k = [] {
    const Fr w = ff::FrRootOfUnity(32), target = RootOf(kSnarkjsNonResidue, 32);
    const Fr w_inv = w.Inverse();
    // Bit i of k: after removing the bits found so far, target * w^-k has order
    // dividing 2^(32-i); its 2^(31-i)-th power is 1 exactly when bit i is 0.
    uint64_t k = 0;
    Fr rest = target;     // target * w^-k
    Fr w_inv_2i = w_inv;  // w^-(2^i)
    for (unsigned i = 0; i < 32; ++i) {
      Fr t = rest;
      for (unsigned j = 0; j < 31 - i; ++j) t = t.Square();
      if (!t.IsOne()) {
        k |= uint64_t(1) << i;
        rest *= w_inv_2i;
      }
      w_inv_2i = w_inv_2i.Square();
    }
    if (!rest.IsOne()) throw std::logic_error("SnarkjsRootExponent: 5-based root is not a power of the 7-based root");
    return k;
  }();
  return k;
}

namespace {

unsigned CheckedLog2(size_t m, size_t b, size_t c) {
  if (m == 0 || !std::has_single_bit(m) || b != m || c != m) {
    throw std::invalid_argument("ComputeHScalars: a, b, c must have one power-of-two length (got " + std::to_string(m) +
                                ", " + std::to_string(b) + ", " + std::to_string(c) + ")");
  }
  return unsigned(std::countr_zero(m));
}

// snarkjs: coefficients by iFFT over w', then evaluation at g w'^j.
std::vector<Fr> SnarkjsOddCosetH(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c, unsigned log_m,
                                 unsigned threads) {
  const size_t m = a.size();
  const uint64_t k = SnarkjsRootExponent() & (m - 1);  // k mod m (odd)
  const Fr g = RootOf(kSnarkjsNonResidue, log_m + 1);  // w'_2m
  const poly::NttOptions opts{threads};
  std::vector<Fr> scratch(m);
  for (std::vector<Fr>* v : {&a, &b, &c}) {
    // Row i sits at w'^i = w^(k i): scatter it there, so that our iNTT
    // interpolates the same polynomial snarkjs's iFFT does.
    util::ParallelForChunks(m, threads, [&](size_t lo, size_t hi, size_t) {
      for (size_t i = lo; i < hi; ++i) scratch[(k * i) & (m - 1)] = (*v)[i];
    });
    v->swap(scratch);
    poly::InverseNtt(*v, opts);
    poly::CosetNtt(*v, opts, g);  // index i: value at g w^i
  }
  // P(g w'^j) = P(g w^(k j)): gather in snarkjs's order.
  std::vector<Fr> h(m);
  util::ParallelForChunks(m, threads, [&](size_t lo, size_t hi, size_t) {
    for (size_t j = lo; j < hi; ++j) {
      size_t i = (k * j) & (m - 1);
      h[j] = a[i] * b[i] - c[i];
    }
  });
  return h;
}

}  // namespace

std::vector<Fr> ComputeHScalars(HQueryForm form, std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c,
                                unsigned threads) {
  const unsigned log_m = CheckedLog2(a.size(), b.size(), c.size());
  if (form == HQueryForm::kSnarkjsOddCoset) return SnarkjsOddCosetH(a, b, c, log_m, threads);
  poly::EvaluationDomain domain(log_m);
  domain.ComputeGroth16H(a, b, c, poly::NttOptions{threads});
  a.resize(a.size() - 1);  // bellperson drops the last coefficient (0 for a satisfied circuit)
  std::vector<Fr> h = std::move(a);
  a = {};
  return h;
}

}  // namespace cuzk::groth16
