#include "engine/ff/fp12.hpp"

#include <array>
#include <stdexcept>

namespace cuzk::ff {
namespace {

// (a + b t)^2 in Fp4 = Fp2[t]/(t^2 - xi): returns (a^2 + xi b^2, 2ab) with 3 S2.
inline void Fp4Square(const Fp2& a, const Fp2& b, Fp2& out0, Fp2& out1) {
  Fp2 a2 = a.Square(), b2 = b.Square();
  out0 = b2.MulByNonResidue() + a2;
  out1 = (a + b).Square() - a2 - b2;
}

// Pointers to the 12 Fp coefficients in serialization order (see fp12.hpp);
// const or not as f is.
template <class F>
auto Coefficients(F& f) {
  return std::array{&f.c0.c0.c0, &f.c0.c0.c1, &f.c0.c1.c0, &f.c0.c1.c1, &f.c0.c2.c0, &f.c0.c2.c1,
                    &f.c1.c0.c0, &f.c1.c0.c1, &f.c1.c1.c0, &f.c1.c1.c1, &f.c1.c2.c0, &f.c1.c2.c1};
}

}  // namespace

// Granger-Scott: view x as an element of Fp4^3 with Fp4 = Fp2[t]/(t^2 - xi),
// t = w^3. The pairs (z0, z1), (z2, z3), (z4, z5) below are its three Fp4
// coefficients (the index shuffle of zkcrypto/bls12_381's cyclotomic_square).
// For x in the cyclotomic subgroup, x^2 = (3 A^2 - 2 conj(A), 3 t C^2 + 2 conj(B),
// 3 B^2 - 2 conj(C)) coefficient-wise, so only three Fp4 squarings are needed.
Fp12 Fp12::CyclotomicSquare() const {
  Fp2 z0 = c0.c0, z4 = c0.c1, z3 = c0.c2;
  Fp2 z2 = c1.c0, z1 = c1.c1, z5 = c1.c2;
  Fp2 t0, t1, t2, t3;

  Fp4Square(z0, z1, t0, t1);
  z0 = t0 - z0;
  z0 = z0.Double() + t0;
  z1 = t1 + z1;
  z1 = z1.Double() + t1;

  Fp4Square(z2, z3, t0, t1);
  Fp4Square(z4, z5, t2, t3);
  z4 = t0 - z4;
  z4 = z4.Double() + t0;
  z5 = t1 + z5;
  z5 = z5.Double() + t1;

  t0 = t3.MulByNonResidue();
  z2 = t0 + z2;
  z2 = z2.Double() + t0;
  z3 = t2 - z3;
  z3 = z3.Double() + t2;

  return {{z0, z4, z3}, {z2, z1, z5}};
}

// Coefficient of w^e (e = 2i + j for c_j.c_i) is conjugated k times and
// multiplied by xi^(e (p^k - 1)/6), because (w^e)^(p^k) = w^e (w^6)^(e (p^k - 1)/6).
Fp12 Fp12::Frobenius(unsigned k) const {
  const auto& g = kFrobeniusGamma[k % 12];
  return {{c0.c0.Frobenius(k), c0.c1.Frobenius(k) * g[2], c0.c2.Frobenius(k) * g[4]},
          {c1.c0.Frobenius(k) * g[1], c1.c1.Frobenius(k) * g[3], c1.c2.Frobenius(k) * g[5]}};
}

Fp12 Fp12::Pow(std::span<const uint64_t> e) const {
  Fp12 r = One();
  size_t bits = 64 * e.size();
  while (bits > 0 && !((e[(bits - 1) / 64] >> ((bits - 1) % 64)) & 1)) --bits;
  for (size_t i = bits; i-- > 0;) {
    r = r.Square();
    if ((e[i / 64] >> (i % 64)) & 1) r *= *this;
  }
  return r;
}

void Fp12::ToBytes(std::span<uint8_t> out) const {
  if (out.size() != kBytes) throw std::invalid_argument("Fp12::ToBytes: output must be 576 bytes");
  auto coeffs = Coefficients(*this);
  for (size_t i = 0; i < coeffs.size(); ++i) coeffs[i]->ToBytes(out.subspan(i * Fp::kBytes, Fp::kBytes), Endian::kBig);
}

std::optional<Fp12> Fp12::FromBytes(std::span<const uint8_t> in) {
  if (in.size() != kBytes) return std::nullopt;
  Fp12 f;
  auto coeffs = Coefficients(f);
  for (size_t i = 0; i < coeffs.size(); ++i) {
    auto v = Fp::FromBytes(in.subspan(i * Fp::kBytes, Fp::kBytes), Endian::kBig);
    if (!v) return std::nullopt;
    *coeffs[i] = *v;
  }
  return f;
}

std::string Fp12::ToHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::array<uint8_t, kBytes> bytes;
  ToBytes(bytes);
  std::string s;
  s.reserve(2 * kBytes);
  for (uint8_t b : bytes) s += kDigits[b >> 4], s += kDigits[b & 15];
  return s;
}

}  // namespace cuzk::ff
