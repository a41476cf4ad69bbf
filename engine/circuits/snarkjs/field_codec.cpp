#include "engine/circuits/snarkjs/field_codec.hpp"

#include <algorithm>

#include "engine/ec/encoding.hpp"

namespace cuzk::snarkjs {

std::optional<ff::Fr> FrFromCanonicalLE(std::span<const uint8_t> bytes) {
  return ff::Fr::FromCanonicalChecked(LimbsFromLE<4>(bytes));
}

std::string_view PointErrorMessage(PointError e) {
  switch (e) {
    case PointError::kOk: return "ok";
    case PointError::kCoordinateNotCanonical: return "a coordinate is not a reduced field element (>= p)";
    case PointError::kNotOnCurve: return "the point is not on the curve";
    case PointError::kNotInSubgroup: return "the point is not in the prime-order subgroup";
  }
  return "unknown error";
}

namespace {

bool AllZero(std::span<const uint8_t> b) {
  return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

std::optional<ff::Fp> FpFromLem(std::span<const uint8_t> bytes) {
  auto l = LimbsFromLE<6>(bytes);
  if (ff::GreaterOrEqual(l, ff::Fp::kModulus)) return std::nullopt;
  return ff::Fp::FromMontgomery(l);
}

void FpToLem(const ff::Fp& f, std::span<uint8_t> out) { LimbsToLE<6>(f.Montgomery(), out); }

}  // namespace

PointError G1FromLem(std::span<const uint8_t> bytes, bool check_subgroup, ec::G1Affine& out) {
  if (AllZero(bytes)) {
    out = ec::G1Affine::Infinity();
    return PointError::kOk;
  }
  auto x = FpFromLem(bytes.subspan(0, kFpBytes));
  auto y = FpFromLem(bytes.subspan(kFpBytes, kFpBytes));
  if (!x || !y) return PointError::kCoordinateNotCanonical;
  out = ec::G1Affine::FromXY(*x, *y);
  if (!out.IsOnCurve()) return PointError::kNotOnCurve;
  if (check_subgroup && !ec::IsInG1Subgroup(out)) return PointError::kNotInSubgroup;
  return PointError::kOk;
}

PointError G2FromLem(std::span<const uint8_t> bytes, bool check_subgroup, ec::G2Affine& out) {
  if (AllZero(bytes)) {
    out = ec::G2Affine::Infinity();
    return PointError::kOk;
  }
  std::optional<ff::Fp> c[4];
  for (int i = 0; i < 4; ++i) {
    c[i] = FpFromLem(bytes.subspan(size_t(i) * kFpBytes, kFpBytes));
    if (!c[i]) return PointError::kCoordinateNotCanonical;
  }
  out = ec::G2Affine::FromXY({*c[0], *c[1]}, {*c[2], *c[3]});
  if (!out.IsOnCurve()) return PointError::kNotOnCurve;
  if (check_subgroup && !ec::IsInG2Subgroup(out)) return PointError::kNotInSubgroup;
  return PointError::kOk;
}

void G1ToLem(const ec::G1Affine& p, std::span<uint8_t> out) {
  if (p.IsInfinity()) {
    std::fill(out.begin(), out.begin() + kG1LemBytes, 0);
    return;
  }
  FpToLem(p.x, out.subspan(0, kFpBytes));
  FpToLem(p.y, out.subspan(kFpBytes, kFpBytes));
}

void G2ToLem(const ec::G2Affine& p, std::span<uint8_t> out) {
  if (p.IsInfinity()) {
    std::fill(out.begin(), out.begin() + kG2LemBytes, 0);
    return;
  }
  FpToLem(p.x.c0, out.subspan(0, kFpBytes));
  FpToLem(p.x.c1, out.subspan(kFpBytes, kFpBytes));
  FpToLem(p.y.c0, out.subspan(2 * kFpBytes, kFpBytes));
  FpToLem(p.y.c1, out.subspan(3 * kFpBytes, kFpBytes));
}

}  // namespace cuzk::snarkjs
