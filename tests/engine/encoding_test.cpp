// ZCash point encoding: round trips, one negative test per DecodeError (each
// input built to fail exactly that check), the endomorphism subgroup tests
// against the generic [r]P == O, and the batch decoders.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "engine/ec/encoding.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::ec {
namespace {

using ff::Endian;
using ff::Fp;
using ff::Fp2;
using ff::Fr;

// ---- helpers ----------------------------------------------------------------------

template <class Rng>
G1Affine RandomG1(Rng& rng) {
  return (G1Jacobian::Generator() * Fr::Random(rng)).ToAffine();
}
template <class Rng>
G2Affine RandomG2(Rng& rng) {
  return (G2Jacobian::Generator() * Fr::Random(rng)).ToAffine();
}

// A random point of E(Fp) / E'(Fp2): x random until x^3 + b is a square. Such
// points lie in the order-r subgroup with probability ~1/h.
template <class C, class Rng>
AffinePoint<C> RandomCurvePoint(Rng& rng) {
  using Field = typename C::Field;
  for (;;) {
    Field x = Field::Random(rng);
    if (auto y = (x.Square() * x + C::kB()).Sqrt()) return AffinePoint<C>::FromXY(x, *y);
  }
}

// An x with no point: x^3 + b is not a square.
template <class C, class Rng>
typename C::Field RandomXWithoutPoint(Rng& rng) {
  using Field = typename C::Field;
  for (;;) {
    Field x = Field::Random(rng);
    if (!(x.Square() * x + C::kB()).Sqrt()) return x;
  }
}

// Writes a canonical value v into 48 big-endian bytes, keeping the flag bits
// of the first byte (so the flags stay as they were).
void PutRawFp(uint8_t* out, const Limbs<6>& v, bool keep_flags) {
  uint8_t flags = keep_flags ? (out[0] & 0xe0) : 0;
  for (size_t i = 0; i < 48; ++i) out[47 - i] = uint8_t(v[i / 8] >> (8 * (i % 8)));
  out[0] |= flags;
}

template <size_t N>
std::vector<uint8_t> ToVector(const std::array<uint8_t, N>& a) {
  return {a.begin(), a.end()};
}

template <class R>
void ExpectError(const R& r, DecodeError want, const char* what) {
  EXPECT_FALSE(r.ok()) << what;
  EXPECT_FALSE(r.point.has_value()) << what;
  EXPECT_EQ(DecodeErrorName(r.error), DecodeErrorName(want)) << what;
}

const DecodeOptions kNoSubgroup{.check_subgroup = false};

// ---- round trips --------------------------------------------------------------------

TEST(EncodingTest, G1RoundTripsBothFormats) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 20; ++i) {
    G1Affine p = RandomG1(rng);
    G1Compressed c = EncodeCompressed(p);
    G1Uncompressed u = EncodeUncompressed(p);
    EXPECT_EQ(c[0] & kFlagCompressed, kFlagCompressed);
    EXPECT_EQ(u[0] & 0xe0, 0);
    EXPECT_EQ(*DecodeG1Compressed(c).point, p);
    EXPECT_EQ(*DecodeG1Uncompressed(u).point, p);
    EXPECT_EQ(*DecodeG1(c).point, p);
    EXPECT_EQ(*DecodeG1(u).point, p);
    // -P differs only in the sort bit when compressed.
    G1Compressed cn = EncodeCompressed(-p);
    EXPECT_EQ(cn[0] ^ c[0], kFlagSort);
    EXPECT_TRUE(std::equal(c.begin() + 1, c.end(), cn.begin() + 1));
    EXPECT_EQ(*DecodeG1(cn).point, -p);
    // The span writers produce the same bytes.
    G1Compressed c2{};
    G1Uncompressed u2{};
    EncodeCompressed(p, c2);
    EncodeUncompressed(p, u2);
    EXPECT_EQ(c2, c);
    EXPECT_EQ(u2, u);
  }
}

TEST(EncodingTest, G2RoundTripsBothFormats) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 10; ++i) {
    G2Affine p = RandomG2(rng);
    G2Compressed c = EncodeCompressed(p);
    G2Uncompressed u = EncodeUncompressed(p);
    EXPECT_EQ(*DecodeG2Compressed(c).point, p);
    EXPECT_EQ(*DecodeG2Uncompressed(u).point, p);
    EXPECT_EQ(*DecodeG2(c).point, p);
    EXPECT_EQ(*DecodeG2(u).point, p);
    G2Compressed cn = EncodeCompressed(-p);
    EXPECT_EQ(cn[0] ^ c[0], kFlagSort);
    EXPECT_EQ(*DecodeG2(cn).point, -p);
    // Layout: x.c1 then x.c0 (then y.c1, y.c0), each big-endian.
    std::array<uint8_t, 48> c1{}, c0{};
    p.x.c1.ToBytes(c1, Endian::kBig);
    p.y.c0.ToBytes(c0, Endian::kBig);
    EXPECT_TRUE(std::equal(c1.begin() + 1, c1.end(), u.begin() + 1));
    EXPECT_TRUE(std::equal(c0.begin(), c0.end(), u.begin() + 144));
  }
}

TEST(EncodingTest, SortFlagPicksLexicographicallyLargestY) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 10; ++i) {
    G2Affine p = RandomG2(rng);
    bool flag = EncodeCompressed(p)[0] & kFlagSort;
    EXPECT_EQ(flag, p.y.LexicographicallyLargest());
    EXPECT_NE(p.y.LexicographicallyLargest(), (-p.y).LexicographicallyLargest());
  }
  // G1: the sort flag is y > (p-1)/2, checked on the integers.
  for (int i = 0; i < 10; ++i) {
    G1Affine p = RandomG1(rng);
    Limbs<6> y = p.y.ToCanonical(), minus_y = (-p.y).ToCanonical();
    bool larger = !ff::GreaterOrEqual(minus_y, y);  // y > p - y  <=>  y > (p-1)/2
    EXPECT_EQ(bool(EncodeCompressed(p)[0] & kFlagSort), larger);
  }
}

TEST(EncodingTest, InfinityRoundTrips) {
  G1Compressed c1 = EncodeCompressed(G1Affine::Infinity());
  G1Uncompressed u1 = EncodeUncompressed(G1Affine::Infinity());
  G2Compressed c2 = EncodeCompressed(G2Affine::Infinity());
  G2Uncompressed u2 = EncodeUncompressed(G2Affine::Infinity());
  EXPECT_EQ(c1[0], 0xc0);
  EXPECT_EQ(u1[0], 0x40);
  EXPECT_EQ(c2[0], 0xc0);
  EXPECT_EQ(u2[0], 0x40);
  EXPECT_TRUE(DecodeG1(c1).point->IsInfinity());
  EXPECT_TRUE(DecodeG1(u1).point->IsInfinity());
  EXPECT_TRUE(DecodeG2(c2).point->IsInfinity());
  EXPECT_TRUE(DecodeG2(u2).point->IsInfinity());
  DecodeOptions strict{.allow_infinity = false};
  ExpectError(DecodeG1(c1, strict), DecodeError::kUnexpectedInfinity, "G1 compressed");
  ExpectError(DecodeG1(u1, strict), DecodeError::kUnexpectedInfinity, "G1 uncompressed");
  ExpectError(DecodeG2(c2, strict), DecodeError::kUnexpectedInfinity, "G2 compressed");
  ExpectError(DecodeG2(u2, strict), DecodeError::kUnexpectedInfinity, "G2 uncompressed");
}

// Any accepted encoding is the canonical one: random corruptions either fail
// or decode to a point that re-encodes to exactly the corrupted bytes.
TEST(EncodingTest, AcceptedEncodingsAreCanonical) {
  auto rng = test::SeededRng();
  int accepted = 0;
  for (int i = 0; i < 300; ++i) {
    G1Compressed c = EncodeCompressed(RandomG1(rng));
    c[rng() % c.size()] ^= uint8_t(1u << (rng() % 8));
    auto r = DecodeG1(c, kNoSubgroup);
    if (r.ok()) {
      ++accepted;
      EXPECT_EQ(EncodeCompressed(*r.point), c);
    }
  }
  // A flipped x bit gives a new point about half of the time.
  EXPECT_GT(accepted, 30);
}

// ---- one test per error --------------------------------------------------------------

TEST(EncodingTest, WrongLength) {
  auto rng = test::SeededRng();
  G1Uncompressed u = EncodeUncompressed(RandomG1(rng));
  std::span<const uint8_t> s(u);
  for (size_t n : {0, 1, 47, 49, 95}) {
    ExpectError(DecodeG1(s.first(n)), DecodeError::kWrongLength, "G1 auto");
  }
  ExpectError(DecodeG1Compressed(s), DecodeError::kWrongLength, "96 bytes as G1 compressed");
  ExpectError(DecodeG1Uncompressed(s.first(48)), DecodeError::kWrongLength, "48 bytes as G1 uncompressed");
  G2Uncompressed u2 = EncodeUncompressed(RandomG2(rng));
  std::span<const uint8_t> s2(u2);
  for (size_t n : {0, 48, 95, 97, 191}) {
    ExpectError(DecodeG2(s2.first(n)), DecodeError::kWrongLength, "G2 auto");
  }
  ExpectError(DecodeG2Compressed(s2), DecodeError::kWrongLength, "192 bytes as G2 compressed");
  ExpectError(DecodeG2Uncompressed(s2.first(96)), DecodeError::kWrongLength, "96 bytes as G2 uncompressed");
}

TEST(EncodingTest, CompressionBitMustMatchLength) {
  auto rng = test::SeededRng();
  G1Affine p = RandomG1(rng);
  G1Compressed c = EncodeCompressed(p);
  c[0] &= uint8_t(~kFlagCompressed);  // missing
  ExpectError(DecodeG1(c), DecodeError::kBadFlags, "G1 compressed without 0x80");
  ExpectError(DecodeG1Compressed(c), DecodeError::kBadFlags, "G1 compressed without 0x80");
  G1Uncompressed u = EncodeUncompressed(p);
  u[0] |= kFlagCompressed;  // extra
  ExpectError(DecodeG1(u), DecodeError::kBadFlags, "G1 uncompressed with 0x80");

  G2Affine q = RandomG2(rng);
  G2Compressed c2 = EncodeCompressed(q);
  c2[0] &= uint8_t(~kFlagCompressed);
  ExpectError(DecodeG2(c2), DecodeError::kBadFlags, "G2 compressed without 0x80");
  G2Uncompressed u2 = EncodeUncompressed(q);
  u2[0] |= kFlagCompressed;
  ExpectError(DecodeG2(u2), DecodeError::kBadFlags, "G2 uncompressed with 0x80");
  // A 96-byte G1 uncompressed with the compression bit is not a G2 compressed point for G1.
  G1Uncompressed infinity = EncodeUncompressed(G1Affine::Infinity());
  infinity[0] |= kFlagCompressed;
  ExpectError(DecodeG1(infinity), DecodeError::kBadFlags, "G1 uncompressed infinity with 0x80");
}

TEST(EncodingTest, SortFlagOnUncompressedOrInfinity) {
  auto rng = test::SeededRng();
  G1Uncompressed u = EncodeUncompressed(RandomG1(rng));
  u[0] |= kFlagSort;
  ExpectError(DecodeG1(u), DecodeError::kBadFlags, "G1 uncompressed with sort flag");
  G2Uncompressed u2 = EncodeUncompressed(RandomG2(rng));
  u2[0] |= kFlagSort;
  ExpectError(DecodeG2(u2), DecodeError::kBadFlags, "G2 uncompressed with sort flag");

  G1Compressed c = EncodeCompressed(G1Affine::Infinity());
  c[0] |= kFlagSort;
  ExpectError(DecodeG1(c), DecodeError::kBadFlags, "G1 compressed infinity with sort flag");
  G2Compressed c2 = EncodeCompressed(G2Affine::Infinity());
  c2[0] |= kFlagSort;
  ExpectError(DecodeG2(c2), DecodeError::kBadFlags, "G2 compressed infinity with sort flag");
  G1Uncompressed ui = EncodeUncompressed(G1Affine::Infinity());
  ui[0] |= kFlagSort;
  ExpectError(DecodeG1(ui), DecodeError::kBadFlags, "G1 uncompressed infinity with sort flag");
}

TEST(EncodingTest, InfinityWithOtherBitsIsMalformed) {
  auto rng = test::SeededRng();
  // Every byte position, for every format, with a random non-zero value.
  auto check_all_positions = [&](auto encoded, auto decode, const char* what) {
    for (size_t pos = 0; pos < encoded.size(); ++pos) {
      auto bad = encoded;
      uint8_t v = uint8_t(1 + rng() % 255);
      if (pos == 0) v = uint8_t(1 + rng() % 31);  // below the flag bits
      bad[pos] |= v;
      SCOPED_TRACE(pos);
      ExpectError(decode(bad), DecodeError::kMalformedInfinity, what);
    }
  };
  auto d1 = [](std::span<const uint8_t> b) { return DecodeG1(b); };
  auto d2 = [](std::span<const uint8_t> b) { return DecodeG2(b); };
  check_all_positions(EncodeCompressed(G1Affine::Infinity()), d1, "G1 compressed");
  check_all_positions(EncodeUncompressed(G1Affine::Infinity()), d1, "G1 uncompressed");
  check_all_positions(EncodeCompressed(G2Affine::Infinity()), d2, "G2 compressed");
  check_all_positions(EncodeUncompressed(G2Affine::Infinity()), d2, "G2 uncompressed");
  // The infinity bit set on a real point's encoding.
  G1Compressed c = EncodeCompressed(RandomG1(rng));
  c[0] |= kFlagInfinity;
  c[0] &= uint8_t(~kFlagSort);
  ExpectError(DecodeG1(c), DecodeError::kMalformedInfinity, "G1 point with infinity bit");
  G2Uncompressed u2 = EncodeUncompressed(RandomG2(rng));
  u2[0] |= kFlagInfinity;
  ExpectError(DecodeG2(u2), DecodeError::kMalformedInfinity, "G2 point with infinity bit");
}

TEST(EncodingTest, CoordinateNotBelowModulus) {
  auto rng = test::SeededRng();
  const Limbs<6> p = Fp::kModulus;
  Limbs<6> all_ones{};  // 2^381 - 1: every non-flag bit set
  for (auto& w : all_ones) w = ~uint64_t(0);
  all_ones[5] >>= 3;
  for (const Limbs<6>& bad : {p, ff::AddSmall(p, 1), all_ones}) {
    // G1 compressed and uncompressed x, uncompressed y.
    G1Affine pt = RandomG1(rng);
    G1Compressed c = EncodeCompressed(pt);
    PutRawFp(c.data(), bad, true);
    ExpectError(DecodeG1(c), DecodeError::kCoordinateNotCanonical, "G1 compressed x");
    for (size_t offset : {0, 48}) {
      G1Uncompressed u = EncodeUncompressed(pt);
      PutRawFp(u.data() + offset, bad, true);
      SCOPED_TRACE(offset);
      ExpectError(DecodeG1(u), DecodeError::kCoordinateNotCanonical, "G1 uncompressed");
    }
    // G2: each Fp of x (compressed) and of x and y (uncompressed).
    G2Affine q = RandomG2(rng);
    for (size_t offset : {0, 48}) {
      G2Compressed c2 = EncodeCompressed(q);
      PutRawFp(c2.data() + offset, bad, true);
      SCOPED_TRACE(offset);
      ExpectError(DecodeG2(c2), DecodeError::kCoordinateNotCanonical, "G2 compressed");
    }
    for (size_t offset : {0, 48, 96, 144}) {
      G2Uncompressed u2 = EncodeUncompressed(q);
      PutRawFp(u2.data() + offset, bad, true);
      SCOPED_TRACE(offset);
      ExpectError(DecodeG2(u2), DecodeError::kCoordinateNotCanonical, "G2 uncompressed");
    }
  }
  // High bits in y's first byte are not flags: they make y >= p.
  G1Uncompressed u = EncodeUncompressed(RandomG1(rng));
  u[48] |= 0x80;
  ExpectError(DecodeG1(u), DecodeError::kCoordinateNotCanonical, "G1 y with top bit");
  G2Uncompressed u2 = EncodeUncompressed(RandomG2(rng));
  u2[48] |= 0x20;  // x.c0's first byte
  ExpectError(DecodeG2(u2), DecodeError::kCoordinateNotCanonical, "G2 x.c0 with bit 0x20");
}

TEST(EncodingTest, CompressedXWithoutSquareRoot) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 5; ++i) {
    Fp x = RandomXWithoutPoint<G1Curve>(rng);
    G1Compressed c{};
    x.ToBytes(c, Endian::kBig);
    c[0] |= kFlagCompressed | (i & 1 ? kFlagSort : 0);
    ExpectError(DecodeG1(c, kNoSubgroup), DecodeError::kNoSquareRoot, "G1");

    Fp2 x2 = RandomXWithoutPoint<G2Curve>(rng);
    G2Compressed c2{};
    x2.c1.ToBytes(std::span<uint8_t>(c2).first(48), Endian::kBig);
    x2.c0.ToBytes(std::span<uint8_t>(c2).last(48), Endian::kBig);
    c2[0] |= kFlagCompressed;
    ExpectError(DecodeG2(c2, kNoSubgroup), DecodeError::kNoSquareRoot, "G2");
  }
}

TEST(EncodingTest, UncompressedNotOnCurve) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 5; ++i) {
    G1Affine p = RandomG1(rng);
    G1Affine bad = G1Affine::FromXY(p.x, p.y + Fp::One());
    ASSERT_FALSE(bad.IsOnCurve());
    ExpectError(DecodeG1(EncodeUncompressed(bad)), DecodeError::kNotOnCurve, "G1");
    ExpectError(DecodeG1(EncodeUncompressed(bad), kNoSubgroup), DecodeError::kNotOnCurve, "G1 no subgroup check");

    G2Affine q = RandomG2(rng);
    G2Affine bad2 = G2Affine::FromXY(q.x, q.y + Fp2{Fp::Zero(), Fp::One()});
    ASSERT_FALSE(bad2.IsOnCurve());
    ExpectError(DecodeG2(EncodeUncompressed(bad2)), DecodeError::kNotOnCurve, "G2");
    ExpectError(DecodeG2(EncodeUncompressed(bad2), kNoSubgroup), DecodeError::kNotOnCurve, "G2 no subgroup check");
  }
  // (0, 0) is not on either curve (b != 0) and must not pass as some other form.
  ExpectError(DecodeG1(G1Uncompressed{}), DecodeError::kNotOnCurve, "G1 (0,0)");
  ExpectError(DecodeG2(G2Uncompressed{}), DecodeError::kNotOnCurve, "G2 (0,0)");
}

TEST(EncodingTest, OnCurveButNotInSubgroup) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 4; ++i) {
    G1Affine p = RandomCurvePoint<G1Curve>(rng);
    ASSERT_TRUE(p.IsOnCurve());
    ASSERT_FALSE(G1Jacobian::FromAffine(p).IsInSubgroup()) << "a random E(Fp) point landed in G1";
    for (auto bytes : {ToVector(EncodeCompressed(p)), ToVector(EncodeUncompressed(p))}) {
      ExpectError(DecodeG1(bytes), DecodeError::kNotInSubgroup, "G1");
      auto r = DecodeG1(bytes, kNoSubgroup);
      ASSERT_TRUE(r.ok()) << DecodeErrorName(r.error);
      EXPECT_EQ(*r.point, p);
    }
    G2Affine q = RandomCurvePoint<G2Curve>(rng);
    ASSERT_FALSE(G2Jacobian::FromAffine(q).IsInSubgroup()) << "a random E'(Fp2) point landed in G2";
    for (auto bytes : {ToVector(EncodeCompressed(q)), ToVector(EncodeUncompressed(q))}) {
      ExpectError(DecodeG2(bytes), DecodeError::kNotInSubgroup, "G2");
      auto r = DecodeG2(bytes, kNoSubgroup);
      ASSERT_TRUE(r.ok()) << DecodeErrorName(r.error);
      EXPECT_EQ(*r.point, q);
    }
  }
}

TEST(EncodingTest, ErrorNamesAndMessagesAreDistinct) {
  std::set<std::string_view> names, messages;
  for (int e = 0; e <= int(DecodeError::kUnexpectedInfinity); ++e) {
    names.insert(DecodeErrorName(DecodeError(e)));
    messages.insert(DecodeErrorMessage(DecodeError(e)));
  }
  EXPECT_EQ(names.size(), size_t(int(DecodeError::kUnexpectedInfinity) + 1));
  EXPECT_EQ(messages.size(), names.size());
  EXPECT_EQ(DecodeErrorName(DecodeError::kNotInSubgroup), "kNotInSubgroup");
}

// ---- subgroup membership ----------------------------------------------------------------

TEST(SubgroupTest, G1EndomorphismTestAgreesWithOrderTest) {
  auto rng = test::SeededRng();
  EXPECT_TRUE(IsInG1Subgroup(G1Affine::Infinity()));
  EXPECT_TRUE(IsInG1Subgroup(G1Affine::Generator()));
  for (int i = 0; i < 5; ++i) {
    G1Affine in = RandomG1(rng);
    EXPECT_TRUE(IsInG1Subgroup(in));
    G1Affine out = RandomCurvePoint<G1Curve>(rng);
    EXPECT_EQ(IsInG1Subgroup(out), G1Jacobian::FromAffine(out).IsInSubgroup());
    EXPECT_FALSE(IsInG1Subgroup(out));
  }
  // Points whose only non-G1 part has one small prime order ell | h1 =
  // 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2 (the cases a weaker test could miss).
  const std::vector<uint64_t> factors = {3, 11, 11, 10177, 10177, 859267, 859267, 52437899, 52437899};
  // The factorization is of h1 = (z - 1)^2 / 3: [h1 * r] kills every point of E(Fp).
  G1Jacobian any = G1Jacobian::FromAffine(RandomCurvePoint<G1Curve>(rng)).MulLimbs(G1Curve::kOrder);
  for (uint64_t f : factors) any = any.MulLimbs(Limbs<1>{f});
  EXPECT_TRUE(any.IsInfinity());
  // E(Fp)[ell] is Z/ell x Z/ell here (every ell divides p - 1), so [h1 / ell]
  // kills it: clear every other prime, then multiply by ell while that keeps
  // the point non-zero, which leaves a point of order exactly ell.
  for (uint64_t ell : {3, 11, 10177, 859267, 52437899}) {
    SCOPED_TRACE(ell);
    G1Jacobian t;
    do {
      t = G1Jacobian::FromAffine(RandomCurvePoint<G1Curve>(rng)).MulLimbs(G1Curve::kOrder);
      for (uint64_t f : factors) {
        if (f != ell) t = t.MulLimbs(Limbs<1>{f});
      }
    } while (t.IsInfinity());
    while (!t.MulLimbs(Limbs<1>{ell}).IsInfinity()) t = t.MulLimbs(Limbs<1>{ell});
    ASSERT_TRUE(t.MulLimbs(Limbs<1>{ell}).IsInfinity());
    G1Affine mixed = (G1Jacobian::FromAffine(RandomG1(rng)) + t).ToAffine();
    EXPECT_FALSE(IsInG1Subgroup(t.ToAffine()));
    EXPECT_FALSE(IsInG1Subgroup(mixed));
    EXPECT_FALSE(G1Jacobian::FromAffine(mixed).IsInSubgroup());
  }
}

TEST(SubgroupTest, G2EndomorphismTestAgreesWithOrderTest) {
  auto rng = test::SeededRng();
  EXPECT_TRUE(IsInG2Subgroup(G2Affine::Infinity()));
  EXPECT_TRUE(IsInG2Subgroup(G2Affine::Generator()));
  for (int i = 0; i < 5; ++i) {
    G2Affine in = RandomG2(rng);
    EXPECT_TRUE(IsInG2Subgroup(in));
    G2Affine out = RandomCurvePoint<G2Curve>(rng);
    EXPECT_FALSE(G2Jacobian::FromAffine(out).IsInSubgroup());
    EXPECT_FALSE(IsInG2Subgroup(out));
    // A G2 point plus a pure cofactor-torsion point [r]R.
    G2Jacobian torsion = G2Jacobian::FromAffine(RandomCurvePoint<G2Curve>(rng)).MulLimbs(G2Curve::kOrder);
    ASSERT_FALSE(torsion.IsInfinity());
    EXPECT_FALSE(IsInG2Subgroup(torsion.ToAffine()));
    EXPECT_FALSE(IsInG2Subgroup((G2Jacobian::FromAffine(in) + torsion).ToAffine()));
  }
}

// ---- batch decoding --------------------------------------------------------------------------

// n distinct G1 points by repeated addition (cheaper than n scalar multiplications).
template <class Jac, class Rng>
std::vector<typename Jac::Affine> PointRun(size_t n, Rng& rng) {
  std::vector<typename Jac::Affine> v;
  Jac step = Jac::Generator() * Fr::Random(rng), acc = step;
  for (size_t i = 0; i < n; ++i, acc += step) v.push_back(acc.ToAffine());
  return v;
}

template <class Affine>
std::vector<uint8_t> Concat(const std::vector<Affine>& pts, PointFormat f) {
  std::vector<uint8_t> out;
  for (const auto& p : pts) {
    if (f == PointFormat::kCompressed) {
      auto e = EncodeCompressed(p);
      out.insert(out.end(), e.begin(), e.end());
    } else {
      auto e = EncodeUncompressed(p);
      out.insert(out.end(), e.begin(), e.end());
    }
  }
  return out;
}

TEST(BatchDecodeTest, G1UncompressedAndCompressedRoundTrip) {
  auto rng = test::SeededRng();
  auto pts = PointRun<G1Jacobian>(2000, rng);
  pts[17] = G1Affine::Infinity();
  for (PointFormat f : {PointFormat::kUncompressed, PointFormat::kCompressed}) {
    std::vector<uint8_t> bytes = Concat(pts, f);
    for (unsigned threads : {1u, 3u, 0u}) {
      std::vector<G1Affine> out(pts.size());
      BatchDecodeResult r = DecodeG1Batch(bytes, f, out, kNoSubgroup, threads);
      ASSERT_TRUE(r.ok()) << DecodeErrorName(r.error) << " at " << r.index;
      EXPECT_EQ(out, pts);
    }
  }
  // With the subgroup check on a slice (it costs ~100x more per point).
  std::vector<uint8_t> bytes =
      Concat(std::vector<G1Affine>(pts.begin(), pts.begin() + 600), PointFormat::kUncompressed);
  std::vector<G1Affine> out(600);
  EXPECT_TRUE(DecodeG1Batch(bytes, PointFormat::kUncompressed, out, {}, 4).ok());
  EXPECT_TRUE(std::equal(out.begin(), out.end(), pts.begin()));
}

TEST(BatchDecodeTest, G2RoundTrip) {
  auto rng = test::SeededRng();
  auto pts = PointRun<G2Jacobian>(600, rng);
  for (PointFormat f : {PointFormat::kUncompressed, PointFormat::kCompressed}) {
    std::vector<G2Affine> out(pts.size());
    BatchDecodeResult r = DecodeG2Batch(Concat(pts, f), f, out, kNoSubgroup, 4);
    ASSERT_TRUE(r.ok()) << DecodeErrorName(r.error) << " at " << r.index;
    EXPECT_EQ(out, pts);
  }
}

TEST(BatchDecodeTest, ReportsFirstErrorByIndex) {
  auto rng = test::SeededRng();
  const size_t n = 3000;
  auto pts = PointRun<G1Jacobian>(n, rng);
  std::vector<uint8_t> bytes = Concat(pts, PointFormat::kUncompressed);
  // Errors late in the last chunk, early in a middle one, and one more later.
  auto corrupt_y = [&](size_t i) { bytes[i * 96 + 95] ^= 1; };                       // off the curve
  auto corrupt_x = [&](size_t i) { PutRawFp(&bytes[i * 96], Fp::kModulus, true); };  // x = p
  corrupt_y(2900);
  corrupt_x(1234);
  corrupt_y(1500);
  for (unsigned threads : {1u, 2u, 4u, 7u}) {
    std::vector<G1Affine> out(n);
    BatchDecodeResult r = DecodeG1Batch(bytes, PointFormat::kUncompressed, out, kNoSubgroup, threads);
    EXPECT_EQ(DecodeErrorName(r.error), "kCoordinateNotCanonical") << threads;
    EXPECT_EQ(r.index, 1234u) << threads;
  }
  // An infinity where it is forbidden, before all of them.
  auto inf = EncodeUncompressed(G1Affine::Infinity());
  std::copy(inf.begin(), inf.end(), bytes.begin() + 5 * 96);
  std::vector<G1Affine> out(n);
  BatchDecodeResult r =
      DecodeG1Batch(bytes, PointFormat::kUncompressed, out, {.check_subgroup = false, .allow_infinity = false}, 4);
  EXPECT_EQ(DecodeErrorName(r.error), "kUnexpectedInfinity");
  EXPECT_EQ(r.index, 5u);
  // A point not in the subgroup is only caught with the check on.
  G1Affine outsider = RandomCurvePoint<G1Curve>(rng);
  std::vector<G1Affine> small(PointRun<G1Jacobian>(300, rng));
  small[299] = outsider;
  std::vector<uint8_t> small_bytes = Concat(small, PointFormat::kCompressed);
  std::vector<G1Affine> small_out(small.size());
  EXPECT_TRUE(DecodeG1Batch(small_bytes, PointFormat::kCompressed, small_out, kNoSubgroup, 2).ok());
  r = DecodeG1Batch(small_bytes, PointFormat::kCompressed, small_out, {}, 2);
  EXPECT_EQ(DecodeErrorName(r.error), "kNotInSubgroup");
  EXPECT_EQ(r.index, 299u);
}

TEST(BatchDecodeTest, LengthMustMatchOutput) {
  std::vector<uint8_t> bytes(96 * 10);
  std::vector<G1Affine> out(9);
  BatchDecodeResult r = DecodeG1Batch(bytes, PointFormat::kUncompressed, out);
  EXPECT_EQ(DecodeErrorName(r.error), "kWrongLength");
  EXPECT_EQ(r.index, 0u);
  std::vector<G2Affine> out2(10);
  r = DecodeG2Batch(bytes, PointFormat::kCompressed, out2);  // 960 bytes = 10 compressed G2 of zeros
  EXPECT_EQ(DecodeErrorName(r.error), "kBadFlags");
  EXPECT_EQ(r.index, 0u);
  std::vector<G1Affine> none;
  EXPECT_TRUE(DecodeG1Batch({}, PointFormat::kUncompressed, none).ok());
}

}  // namespace
}  // namespace cuzk::ec
