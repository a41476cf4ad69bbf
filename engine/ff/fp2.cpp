#include "engine/ff/fp2.hpp"

namespace cuzk::ff {
namespace {

// (p - 3) / 4 and (p - 1) / 2 as exponents.
constexpr Limbs<6> kPMinus3Over4 = ShiftRight1(ShiftRight1(SubSmall(Fp::kModulus, 3)));
constexpr Limbs<6> kPMinus1Over2 = ShiftRight1(SubSmall(Fp::kModulus, 1));

// True when the canonical value of a exceeds (p-1)/2.
bool IsLargerHalf(const Fp& a) {
  Limbs<6> c = a.ToCanonical();
  return !GreaterOrEqual(kPMinus1Over2, c);
}

}  // namespace

std::optional<Fp2> Fp2::Sqrt() const {
  if (IsZero()) return *this;
  Fp2 a1 = Pow(kPMinus3Over4);
  Fp2 alpha = a1.Square() * *this;
  Fp2 x0 = a1 * *this;
  Fp2 minus_one = -One();
  Fp2 root;
  if (alpha == minus_one) {
    root = Fp2{Fp::Zero(), Fp::One()} * x0;  // u * x0
  } else {
    Fp2 b = (alpha + One()).Pow(kPMinus1Over2);
    root = b * x0;
  }
  if (root.Square() != *this) return std::nullopt;
  return root;
}

bool Fp2::LexicographicallyLargest() const {
  if (!c1.IsZero()) return IsLargerHalf(c1);
  return IsLargerHalf(c0);
}

}  // namespace cuzk::ff
