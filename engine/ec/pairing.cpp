#include "engine/ec/pairing.hpp"

#include <vector>

namespace cuzk::ec {
namespace {

using ff::Fp;
using ff::Fp12;
using ff::Fp2;

// 1/2 in Fp, for the halvings of the doubling step.
constexpr Fp kHalf = Fp::FromCanonical(ff::ShiftRight1(ff::AddSmall(Fp::kModulus, 1)));

// b' * a for the twist's b' = 4 (1 + u): a multiplication by xi and two doublings.
inline Fp2 MulByTwistB(const Fp2& a) { return a.MulByNonResidue().Double().Double(); }

// The running point R = [k]Q of the Miller loop in homogeneous projective
// coordinates (x = X/Z, y = Y/Z), with the affine Q and P it belongs to.
struct LoopState {
  Fp2 x, y, z;
  G2Affine q;
  G1Affine p;
};

// A line through points of the twist, as the three Fp2 coefficients (c0, c1,
// c2) of c0 + c1 * P.x * v + c2 * P.y * v w (the sparse Fp12 of MulBy014)
// once evaluated at P (M-type twist: the untwisting map sends the line
// l(x, y) to an Fp12 element supported on 1, v, vw). Scaling a line by any
// element of Fp2 is harmless: the final exponentiation sends it to 1.
struct Line {
  Fp2 c0, c1, c2;
};

inline Fp12 MulByLine(const Fp12& f, const Line& l, const G1Affine& p) {
  return f.MulBy014(l.c0, l.c1 * p.x, l.c2 * p.y);
}

// R <- 2R and the tangent line at R. Costello-Lange-Naehrig, "Faster pairing
// computations on curves with high-degree twists" (eprint 2009/615), in the
// form of Aranha-Karabina-Longa-Gebotys-Lopez (eprint 2010/526, eq. 10 with
// a = 0), as arkworks and noble write it: 3 M2 + 6 S2 + small multiples.
inline Line DoublingStep(LoopState& r) {
  Fp2 a = (r.x * r.y) * kHalf;
  Fp2 b = r.y.Square();
  Fp2 c = r.z.Square();
  Fp2 e = MulByTwistB(c.Double() + c);  // 3 b' Z^2
  Fp2 f = e.Double() + e;               // 9 b' Z^2
  Fp2 g = (b + f) * kHalf;
  Fp2 h = (r.y + r.z).Square() - (b + c);  // 2 Y Z
  Fp2 i = e - b;
  Fp2 j = r.x.Square();
  Fp2 e2 = e.Square();
  r.x = a * (b - f);
  r.y = g.Square() - (e2.Double() + e2);
  r.z = b * h;
  return {i, j.Double() + j, -h};
}

// R <- R + Q (Q affine) and the line through R and Q. Same source, eq. 11:
// 11 M2 + 2 S2.
inline Line AdditionStep(LoopState& r) {
  const Fp2& qx = r.q.x;
  const Fp2& qy = r.q.y;
  Fp2 theta = r.y - qy * r.z;
  Fp2 lambda = r.x - qx * r.z;
  Fp2 c = theta.Square();
  Fp2 d = lambda.Square();
  Fp2 e = lambda * d;
  Fp2 f = r.z * c;
  Fp2 g = r.x * d;
  Fp2 h = e + f - g.Double();
  r.x = lambda * h;
  r.y = theta * (g - h) - e * r.y;
  r.z = r.z * e;
  return {theta * qx - lambda * qy, -theta, lambda};
}

// a^x for a in the cyclotomic subgroup: a^|x| by 63 cyclotomic squarings and
// 5 multiplications, then the inverse (conjugation) because x < 0.
Fp12 CyclotomicPowX(const Fp12& a) {
  Fp12 r = a;
  for (int i = 62; i >= 0; --i) {
    r = r.CyclotomicSquare();
    if ((kBlsXAbs >> i) & 1) r *= a;
  }
  static_assert(kBlsXIsNegative, "CyclotomicPowX conjugates for x < 0");
  return r.Conjugate();
}

}  // namespace

Fp12 MillerLoop(std::span<const PairingInput> pairs) {
  std::vector<LoopState> states;
  states.reserve(pairs.size());
  for (const auto& [p, q] : pairs) {
    if (p.IsInfinity() || q.IsInfinity()) continue;
    states.push_back({q.x, q.y, Fp2::One(), q, p});
  }
  Fp12 f = Fp12::One();
  if (states.empty()) return f;

  // Bits of |x| below the leading one (bit 63), most significant first. The
  // squaring of f is shared by all pairs; it is skipped while f is still 1.
  for (int i = 62; i >= 0; --i) {
    if (i != 62) f = f.Square();
    for (auto& s : states) f = MulByLine(f, DoublingStep(s), s.p);
    if ((kBlsXAbs >> i) & 1) {
      for (auto& s : states) f = MulByLine(f, AdditionStep(s), s.p);
    }
  }
  // f_{x,Q} = 1 / f_{|x|,Q} up to a vertical line (killed by the final
  // exponentiation); f^(p^6) = conjugate is 1/f after it, and cheaper.
  static_assert(kBlsXIsNegative, "the Miller loop conjugates for x < 0");
  return f.Conjugate();
}

// Hard-part chain as in zkcrypto/bls12_381 and noble (HHT, eprint 2020/875):
// with t1 the easy part's output,
//   t2 = t1^x, t3 = t1^(x-2), t4 = t3^x, t5 = t4^x, t6 = t5^x t2^2, t7 = t6^x,
//   result = (t2 t5)^(p^2) (t4 t1)^(p^3) (t6 / t1)^p t7 t1 / t3
//          = t1^(x(x-1)^2 p^2 + (x-1)^2 p^3 + (x-1)^2 (x^2-1) p + x(x-1)^2 (x^2-1) + 3)
//          = t1^((x-1)^2 (x+p)(x^2+p^2-1) + 3) = t1^(3 (p^4 - p^2 + 1)/r).
// Cost: 5 exponentiations by x (315 cyclotomic squarings, 25 multiplications),
// ~10 more multiplications, 4 Frobenius maps, and one Fp12 inversion (easy part).
Fp12 FinalExponentiation(const Fp12& f) {
  // Easy part: f^(p^6 - 1) then ^(p^2 + 1); the result is cyclotomic.
  Fp12 t0 = f.Conjugate() * f.Inverse();
  Fp12 t1 = t0.Frobenius(2) * t0;

  Fp12 t2 = CyclotomicPowX(t1);
  Fp12 t3 = t1.CyclotomicSquare().Conjugate() * t2;
  Fp12 t4 = CyclotomicPowX(t3);
  Fp12 t5 = CyclotomicPowX(t4);
  Fp12 t6 = CyclotomicPowX(t5) * t2.CyclotomicSquare();
  Fp12 t7 = CyclotomicPowX(t6);

  Fp12 a = (t2 * t5).Frobenius(2);
  Fp12 b = (t4 * t1).Frobenius(3);
  Fp12 c = (t6 * t1.Conjugate()).Frobenius(1);
  Fp12 d = t7 * t3.Conjugate() * t1;
  return a * b * c * d;
}

Fp12 Pairing(const G1Affine& p, const G2Affine& q) {
  PairingInput pair{p, q};
  return MultiPairing({&pair, 1});
}

Fp12 MultiPairing(std::span<const PairingInput> pairs) { return FinalExponentiation(MillerLoop(pairs)); }

bool PairingProductIsOne(std::span<const PairingInput> pairs) { return MultiPairing(pairs).IsOne(); }

}  // namespace cuzk::ec
