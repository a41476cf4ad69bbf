#include "engine/ff/fp6.hpp"

namespace cuzk::ff {
namespace {

// a / d for a small divisor that divides a exactly (checked at compile time).
template <size_t N>
constexpr Limbs<N> DivExactSmall(const Limbs<N>& a, uint64_t d) {
  Limbs<N> q{};
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a[i];
    q[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  if (rem != 0) throw "divisor does not divide the value";
  return q;
}

constexpr Fp2 PowConst(const Fp2& x, const Limbs<6>& e) {
  Fp2 r = Fp2::One();
  for (size_t i = BitLength(e); i-- > 0;) {
    r = r.Square();
    if (TestBit(e, i)) r = r * x;
  }
  return r;
}

// gamma_k = xi^((p^k - 1) / 6). Since (p^k - 1)/6 = (p - 1)/6 * (1 + p + ... + p^(k-1))
// and x -> x^p is conjugation on Fp2, gamma_k = prod_{j<k} conj^j(gamma_1): one
// exponentiation by a 378-bit exponent instead of exponents of up to 4200 bits.
constexpr std::array<std::array<Fp2, 6>, 12> DeriveFrobeniusGamma() {
  const Fp2 xi = Fp2::One().MulByNonResidue();  // 1 + u
  const Fp2 gamma1 = PowConst(xi, DivExactSmall(SubSmall(Fp::kModulus, 1), 6));
  std::array<std::array<Fp2, 6>, 12> table{};
  Fp2 gamma_k = Fp2::One();
  for (unsigned k = 0; k < 12; ++k) {
    Fp2 power = Fp2::One();
    for (unsigned e = 0; e < 6; ++e) {
      table[k][e] = power;
      power = power * gamma_k;
    }
    gamma_k = gamma_k * gamma1.Frobenius(k);
  }
  return table;
}

}  // namespace

constinit const std::array<std::array<Fp2, 6>, 12> kFrobeniusGamma = DeriveFrobeniusGamma();

Fp6 Fp6::Pow(std::span<const uint64_t> e) const {
  Fp6 r = One();
  size_t bits = 64 * e.size();
  while (bits > 0 && !((e[(bits - 1) / 64] >> ((bits - 1) % 64)) & 1)) --bits;
  for (size_t i = bits; i-- > 0;) {
    r = r.Square();
    if ((e[i / 64] >> (i % 64)) & 1) r *= *this;
  }
  return r;
}

}  // namespace cuzk::ff
