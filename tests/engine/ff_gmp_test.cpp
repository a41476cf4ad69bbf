// Fp, Fr and Fp2 against GMP (mpz_class) as the reference: every operation on
// edge values (0, 1, p-1, (p+-1)/2, values around 2^k, R mod p) and on random
// inputs. The moduli are written here again from the BLS12-381 specification
// so that a wrong constant in the field headers is caught too.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/ff/fp.hpp"
#include "engine/ff/fp2.hpp"
#include "engine/ff/fr.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::ff {
namespace {

// ---- GMP bridge ------------------------------------------------------------------

template <size_t N>
mpz_class ToMpz(const Limbs<N>& l) {
  mpz_class r;
  mpz_import(r.get_mpz_t(), N, -1, sizeof(uint64_t), 0, 0, l.data());
  return r;
}

// v must be in [0, 2^(64 N)).
template <size_t N>
Limbs<N> ToLimbs(const mpz_class& v) {
  EXPECT_GE(sgn(v), 0);
  EXPECT_LE(mpz_sizeinbase(v.get_mpz_t(), 2), 64 * N);
  Limbs<N> l{};
  mpz_export(l.data(), nullptr, -1, sizeof(uint64_t), 0, 0, v.get_mpz_t());
  return l;
}

mpz_class Mod(const mpz_class& a, const mpz_class& m) {
  mpz_class r = a % m;
  if (r < 0) r += m;
  return r;
}

template <class Rng>
mpz_class RandomBits(Rng& rng, size_t bits) {
  mpz_class r = 0;
  for (size_t i = 0; i < bits; i += 64) r = (r << 64) + mpz_class(std::to_string(uint64_t(rng())));
  return r >> ((bits + 63) / 64 * 64 - bits);
}

// The multiplication paths this build has: the default one (MULX/ADX assembly
// where mont_field.hpp has it and the CPU supports it) and, where that switch
// exists, the portable C++ one forced on. Each arithmetic test runs on all.
struct MulPath {
  const char* name;
  bool portable;
};
std::vector<MulPath> MulPaths() {
#if defined(CUZK_FF_X86_64_ASM)
  return {{"default", false}, {"portable", true}};
#else
  return {{"default", false}};
#endif
}
class MulPathScope {
 public:
  explicit MulPathScope(const MulPath& path) {
#if defined(CUZK_FF_X86_64_ASM)
    saved_ = detail::use_mulx_adx;
    if (path.portable) detail::use_mulx_adx = false;
#endif
  }
  ~MulPathScope() {
#if defined(CUZK_FF_X86_64_ASM)
    detail::use_mulx_adx = saved_;
#endif
  }
  MulPathScope(const MulPathScope&) = delete;
  MulPathScope& operator=(const MulPathScope&) = delete;

 private:
  [[maybe_unused]] bool saved_ = false;
};

// Big-endian bytes of v, exactly n long (v < 2^(8n)).
std::vector<uint8_t> BigEndianBytes(const mpz_class& v, size_t n) {
  std::vector<uint8_t> out(n, 0);
  size_t count = 0;
  std::vector<uint8_t> tmp(n + 8);
  mpz_export(tmp.data(), &count, 1, 1, 1, 0, v.get_mpz_t());
  EXPECT_LE(count, n);
  std::copy(tmp.begin(), tmp.begin() + count, out.begin() + (n - count));
  return out;
}

// ---- field descriptions --------------------------------------------------------------

struct FpCase {
  using Field = Fp;
  static constexpr const char* kModulusHex =
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
};
struct FrCase {
  using Field = Fr;
  static constexpr const char* kModulusHex = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
};

template <class Case>
class FieldGmpTest : public ::testing::Test {
 protected:
  using F = typename Case::Field;
  static constexpr size_t kN = F::kLimbs;

  const mpz_class p{Case::kModulusHex, 16};

  F FromMpz(const mpz_class& v) const { return F::FromCanonical(ToLimbs<kN>(Mod(v, p))); }
  static mpz_class Value(const F& x) { return ToMpz(x.ToCanonical()); }

  // 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, 2^k - 1, 2^k, 2^k + 1 (every 32 bits
  // and the top bits), R mod p, R^2 mod p.
  std::vector<mpz_class> EdgeValues() const {
    std::vector<mpz_class> v = {0, 1, 2, 3, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2};
    size_t bits = mpz_sizeinbase(p.get_mpz_t(), 2);
    for (size_t k = 31; k < bits; ++k) {
      if (k % 32 != 31 && k % 32 != 0 && k + 2 < bits) continue;
      mpz_class t = mpz_class(1) << k;
      for (const mpz_class& c : {mpz_class(t - 1), t, mpz_class(t + 1)}) {
        if (c < p) v.push_back(c);
      }
    }
    mpz_class r = (mpz_class(1) << (64 * kN)) % p;
    v.push_back(r);
    v.push_back(r * r % p);
    return v;
  }

  template <class Rng>
  std::vector<mpz_class> Inputs(Rng& rng, size_t random_count) const {
    std::vector<mpz_class> v = EdgeValues();
    size_t bits = mpz_sizeinbase(p.get_mpz_t(), 2);
    for (size_t i = 0; i < random_count; ++i) v.push_back(RandomBits(rng, bits) % p);
    return v;
  }
};

using Cases = ::testing::Types<FpCase, FrCase>;
TYPED_TEST_SUITE(FieldGmpTest, Cases);

TYPED_TEST(FieldGmpTest, ModulusAndMontgomeryConstants) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  EXPECT_EQ(ToMpz(F::kModulus), p);
  EXPECT_EQ(mpz_probab_prime_p(p.get_mpz_t(), 30), 1);
  mpz_class r = mpz_class(1) << (64 * TestFixture::kN);
  EXPECT_EQ(ToMpz(F::kR), r % p);
  EXPECT_EQ(ToMpz(F::kR2), r * r % p);
  EXPECT_EQ(Mod(mpz_class(std::to_string(F::kInv)) * ToMpz(Limbs<1>{F::kModulus[0]}), mpz_class(1) << 64),
            (mpz_class(1) << 64) - 1);  // -p^-1 * p = -1 mod 2^64
  EXPECT_EQ(F::kModulusBits, mpz_sizeinbase(p.get_mpz_t(), 2));
  // The Montgomery form is x * R mod p (and FromMontgomery divides by R).
  mpz_class r_mod_p = r % p, r_inv;
  mpz_invert(r_inv.get_mpz_t(), r_mod_p.get_mpz_t(), p.get_mpz_t());
  auto rng = test::SeededRng();
  for (const mpz_class& x : this->Inputs(rng, 20)) {
    EXPECT_EQ(ToMpz(this->FromMpz(x).Montgomery()), x * r % p);
    EXPECT_EQ(ToMpz(F::FromMontgomery(ToLimbs<TestFixture::kN>(x)).ToCanonical()), x * r_inv % p);
  }
}

TYPED_TEST(FieldGmpTest, AddSubNegMulSquare) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  auto rng = test::SeededRng();
  std::vector<mpz_class> in = this->Inputs(rng, 40);
  for (const MulPath& path : MulPaths()) {
    SCOPED_TRACE(path.name);
    MulPathScope scope(path);
    // All pairs of edge and random values (~90^2 pairs).
    for (const mpz_class& a : in) {
      F fa = this->FromMpz(a);
      ASSERT_EQ(this->Value(fa), a);
      EXPECT_EQ(this->Value(-fa), Mod(-a, p)) << a;
      EXPECT_EQ(this->Value(fa.Square()), a * a % p) << a;
      EXPECT_EQ(this->Value(fa.Double()), 2 * a % p) << a;
      EXPECT_EQ(fa.IsZero(), a == 0);
      EXPECT_EQ(fa.IsOne(), a == 1);
      for (const mpz_class& b : in) {
        F fb = this->FromMpz(b);
        ASSERT_EQ(this->Value(fa + fb), (a + b) % p) << a << " + " << b;
        ASSERT_EQ(this->Value(fa - fb), Mod(a - b, p)) << a << " - " << b;
        ASSERT_EQ(this->Value(fa * fb), a * b % p) << a << " * " << b;
        F acc = fa;
        acc *= fb;
        acc += fb;
        acc -= fa;
        ASSERT_EQ(this->Value(acc), Mod(a * b + b - a, p));
        ASSERT_EQ(fa == fb, a == b);
      }
    }
    // Long random chains (errors that need many steps to show).
    mpz_class m = 1;
    F f = F::One();
    for (int i = 0; i < 5000; ++i) {
      mpz_class x = RandomBits(rng, 64 * TestFixture::kN) % p;
      F fx = this->FromMpz(x);
      switch (rng() % 4) {
        case 0: f *= fx, m = m * x % p; break;
        case 1: f += fx, m = (m + x) % p; break;
        case 2: f -= fx, m = Mod(m - x, p); break;
        default: f = f.Square(), m = m * m % p; break;
      }
    }
    EXPECT_EQ(this->Value(f), m);
  }
}

TYPED_TEST(FieldGmpTest, SmallIntegerConstructorsAndHex) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  for (int64_t v : {int64_t(0), int64_t(1), int64_t(-1), int64_t(7), int64_t(-123456789),
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    mpz_class m(std::to_string(v));
    EXPECT_EQ(this->Value(F::FromInt64(v)), Mod(m, p)) << v;
  }
  for (uint64_t v : {uint64_t(0), uint64_t(1), ~uint64_t(0), uint64_t(1) << 63}) {
    EXPECT_EQ(this->Value(F::FromUint64(v)), mpz_class(std::to_string(v)));
  }
  auto rng = test::SeededRng();
  for (const mpz_class& a : this->Inputs(rng, 10)) {
    F fa = this->FromMpz(a);
    std::string hex = fa.ToHex();
    ASSERT_EQ(hex.substr(0, 2), "0x");
    EXPECT_EQ(mpz_class(hex.substr(2), 16), a);
    EXPECT_EQ(F::FromHex(hex), fa);
    EXPECT_EQ(F::FromCanonicalChecked(ToLimbs<TestFixture::kN>(a)), fa);
  }
  EXPECT_FALSE(F::FromCanonicalChecked(ToLimbs<TestFixture::kN>(p)).has_value());
  EXPECT_FALSE(F::FromCanonicalChecked(ToLimbs<TestFixture::kN>(p + 1)).has_value());
}

TYPED_TEST(FieldGmpTest, InverseAndBatchInverse) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  auto rng = test::SeededRng();
  std::vector<mpz_class> in = this->Inputs(rng, 200);
  for (const mpz_class& a : in) {
    mpz_class want = 0;
    if (a != 0) mpz_invert(want.get_mpz_t(), a.get_mpz_t(), p.get_mpz_t());
    EXPECT_EQ(this->Value(this->FromMpz(a).Inverse()), want) << a;  // 0 -> 0
  }
  // BatchInverse with zeros scattered (and at both ends).
  std::vector<F> v;
  std::vector<mpz_class> want;
  for (size_t i = 0; i < in.size(); ++i) {
    mpz_class a = (i % 7 == 3 || i == in.size() - 1) ? mpz_class(0) : in[i];
    v.push_back(this->FromMpz(a));
    mpz_class w = 0;
    if (a != 0) mpz_invert(w.get_mpz_t(), a.get_mpz_t(), p.get_mpz_t());
    want.push_back(w);
  }
  F::BatchInverse(v);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(this->Value(v[i]), want[i]) << i;
  std::vector<F> zeros(5), empty;
  F::BatchInverse(zeros);
  for (const F& z : zeros) EXPECT_TRUE(z.IsZero());
  F::BatchInverse(empty);
}

TYPED_TEST(FieldGmpTest, Pow) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  auto rng = test::SeededRng();
  std::vector<mpz_class> in = this->Inputs(rng, 20);
  for (const mpz_class& a : in) {
    F fa = this->FromMpz(a);
    auto powm = [&](const mpz_class& e) {
      mpz_class r;
      mpz_powm(r.get_mpz_t(), a.get_mpz_t(), e.get_mpz_t(), p.get_mpz_t());
      return r;
    };
    EXPECT_EQ(this->Value(fa.Pow(uint64_t(0))), 1);
    uint64_t e64 = rng();
    EXPECT_EQ(this->Value(fa.Pow(e64)), powm(mpz_class(std::to_string(e64))));
    mpz_class e512 = RandomBits(rng, 512);
    EXPECT_EQ(this->Value(fa.Pow(ToLimbs<8>(e512))), powm(e512));
    mpz_class pm1 = p - 1;
    EXPECT_EQ(this->Value(fa.Pow(ToLimbs<TestFixture::kN>(pm1))), a == 0 ? 0 : 1);  // Fermat
  }
}

TYPED_TEST(FieldGmpTest, LegendreAndSqrt) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  auto rng = test::SeededRng();
  int residues = 0, non_residues = 0;
  std::vector<mpz_class> in = this->Inputs(rng, 400);
  for (size_t i = 0; i < 30; ++i) in.push_back(in[i + 8] * in[i + 8] % p);  // known squares
  for (const mpz_class& a : in) {
    F fa = this->FromMpz(a);
    int legendre = mpz_legendre(a.get_mpz_t(), p.get_mpz_t());
    EXPECT_EQ(fa.Legendre(), legendre) << a;
    std::optional<F> root = fa.Sqrt();
    if (legendre == -1) {
      EXPECT_FALSE(root.has_value()) << a;
      ++non_residues;
    } else {
      ASSERT_TRUE(root.has_value()) << a;
      mpz_class r = this->Value(*root);
      EXPECT_EQ(r * r % p, a) << a;
      residues += legendre;
    }
  }
  EXPECT_GT(residues, 40);
  EXPECT_GT(non_residues, 40);
}

TYPED_TEST(FieldGmpTest, BytesBothEndiannesses) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  constexpr size_t kBytes = F::kBytes;
  auto rng = test::SeededRng();
  for (const mpz_class& a : this->Inputs(rng, 40)) {
    F fa = this->FromMpz(a);
    std::vector<uint8_t> be = BigEndianBytes(a, kBytes), le(be.rbegin(), be.rend());
    std::vector<uint8_t> out(kBytes);
    fa.ToBytes(out, Endian::kBig);
    EXPECT_EQ(out, be);
    fa.ToBytes(out, Endian::kLittle);
    EXPECT_EQ(out, le);
    EXPECT_EQ(F::FromBytes(be, Endian::kBig), fa);
    EXPECT_EQ(F::FromBytes(le, Endian::kLittle), fa);
  }
  // Values >= p and wrong lengths are rejected.
  mpz_class top = (mpz_class(1) << (8 * kBytes)) - 1;
  for (const mpz_class& bad : {p, mpz_class(p + 1), mpz_class(2 * p - 1), top}) {
    std::vector<uint8_t> be = BigEndianBytes(bad, kBytes), le(be.rbegin(), be.rend());
    EXPECT_FALSE(F::FromBytes(be, Endian::kBig).has_value()) << bad;
    EXPECT_FALSE(F::FromBytes(le, Endian::kLittle).has_value()) << bad;
  }
  std::vector<uint8_t> zeros(kBytes + 1, 0);
  for (size_t n : {size_t(0), kBytes - 1, kBytes + 1}) {
    std::span<const uint8_t> s(zeros.data(), n);
    EXPECT_FALSE(F::FromBytes(s, Endian::kBig).has_value()) << n;
    EXPECT_FALSE(F::FromBytes(s, Endian::kLittle).has_value()) << n;
  }
}

TYPED_TEST(FieldGmpTest, FromBytesReduce) {
  using F = typename TestFixture::F;
  const mpz_class& p = this->p;
  auto rng = test::SeededRng();
  for (size_t n : {size_t(0), size_t(1), size_t(8), F::kBytes - 1, F::kBytes, F::kBytes + 1, size_t(64), size_t(100)}) {
    for (int rep = 0; rep < 5; ++rep) {
      std::vector<uint8_t> be(n);
      for (auto& b : be) b = uint8_t(rng());
      if (rep == 0) std::fill(be.begin(), be.end(), 0xff);  // the largest value of that width
      mpz_class v = 0;
      for (uint8_t b : be) v = v * 256 + b;
      std::vector<uint8_t> le(be.rbegin(), be.rend());
      EXPECT_EQ(this->Value(F::FromBytesReduce(be, Endian::kBig)), v % p) << n;
      EXPECT_EQ(this->Value(F::FromBytesReduce(le, Endian::kLittle)), v % p) << n;
    }
  }
}

// ---- Fp2 = Fp[u] / (u^2 + 1) -------------------------------------------------------------

class Fp2GmpTest : public ::testing::Test {
 protected:
  const mpz_class p{FpCase::kModulusHex, 16};
  struct M {
    mpz_class c0, c1;
  };

  Fp ToFp(const mpz_class& v) const { return Fp::FromCanonical(ToLimbs<6>(Mod(v, p))); }
  Fp2 ToFp2(const M& m) const { return Fp2{ToFp(m.c0), ToFp(m.c1)}; }
  static M Value(const Fp2& x) { return {ToMpz(x.c0.ToCanonical()), ToMpz(x.c1.ToCanonical())}; }

  M Mul(const M& a, const M& b) const { return {Mod(a.c0 * b.c0 - a.c1 * b.c1, p), Mod(a.c0 * b.c1 + a.c1 * b.c0, p)}; }
  M Inverse(const M& a) const {
    mpz_class norm = Mod(a.c0 * a.c0 + a.c1 * a.c1, p), inv = 0;
    if (norm != 0) mpz_invert(inv.get_mpz_t(), norm.get_mpz_t(), p.get_mpz_t());
    return {Mod(a.c0 * inv, p), Mod(-a.c1 * inv, p)};
  }

  template <class Rng>
  std::vector<M> Inputs(Rng& rng, size_t random_count) const {
    std::vector<mpz_class> edge = {0, 1, 2, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2, mpz_class(1) << 380};
    std::vector<M> v;
    for (const auto& a : edge) {
      for (const auto& b : edge) v.push_back({a, b});
    }
    for (size_t i = 0; i < random_count; ++i) v.push_back({RandomBits(rng, 381) % p, RandomBits(rng, 381) % p});
    return v;
  }

  static void ExpectEq(const Fp2& got, const M& want, const char* what) {
    M g = Value(got);
    EXPECT_TRUE(g.c0 == want.c0 && g.c1 == want.c1)
        << what << ": got (" << g.c0 << ", " << g.c1 << ") want (" << want.c0 << ", " << want.c1 << ")";
  }
};

TEST_F(Fp2GmpTest, MulSquareInverseAndFriends) {
  auto rng = test::SeededRng();
  std::vector<M> in = Inputs(rng, 30);
  for (const MulPath& path : MulPaths()) {
    SCOPED_TRACE(path.name);
    MulPathScope scope(path);
    for (const M& a : in) {
      Fp2 fa = ToFp2(a);
      ExpectEq(fa.Square(), Mul(a, a), "square");
      ExpectEq(fa.Inverse(), Inverse(a), "inverse");
      ExpectEq(fa.Conjugate(), {a.c0, Mod(-a.c1, p)}, "conjugate");
      ExpectEq(fa.Frobenius(1), {a.c0, Mod(-a.c1, p)}, "frobenius");
      ExpectEq(fa.MulByNonResidue(), Mul(a, {1, 1}), "mul by 1 + u");
      EXPECT_EQ(ToMpz(fa.Norm().ToCanonical()), Mod(a.c0 * a.c0 + a.c1 * a.c1, p));
      // Lexicographic order: c1 first, then c0, as halves of p.
      bool larger = a.c1 != 0 ? a.c1 > (p - 1) / 2 : a.c0 > (p - 1) / 2;
      EXPECT_EQ(fa.LexicographicallyLargest(), larger) << a.c0 << ", " << a.c1;
      for (size_t j = 0; j < in.size(); j += 3) {
        const M& b = in[j];
        Fp2 fb = ToFp2(b);
        ExpectEq(fa * fb, Mul(a, b), "mul");
        ExpectEq(fa + fb, {(a.c0 + b.c0) % p, (a.c1 + b.c1) % p}, "add");
        ExpectEq(fa - fb, {Mod(a.c0 - b.c0, p), Mod(a.c1 - b.c1, p)}, "sub");
        ExpectEq(fa * fb.c0, {a.c0 * b.c0 % p, a.c1 * b.c0 % p}, "mul by Fp");
      }
    }
  }
  // Pow against repeated model multiplication.
  M a = in.back();
  uint64_t e = rng() & 0xffff;
  M want{1, 0};
  for (uint64_t bit = uint64_t(1) << 15; bit; bit >>= 1) {
    want = Mul(want, want);
    if (e & bit) want = Mul(want, a);
  }
  ExpectEq(ToFp2(a).Pow(Limbs<1>{e}), want, "pow");
}

// x is a square in Fp2 exactly when its norm c0^2 + c1^2 is a square in Fp.
TEST_F(Fp2GmpTest, SqrtExistsExactlyForSquares) {
  auto rng = test::SeededRng();
  std::vector<M> in = Inputs(rng, 60);
  // Elements of Fp (all squares in Fp2, the alpha == -1 branch for Fp
  // non-residues) and pure imaginary ones.
  for (int i = 0; i < 10; ++i) {
    mpz_class v = RandomBits(rng, 381) % p;
    in.push_back({v, 0});
    in.push_back({0, v});
  }
  for (int i = 0; i < 10; ++i) in.push_back(Mul(in[i + 70], in[i + 70]));  // known squares
  int squares = 0, non_squares = 0, fp_non_residues = 0;
  for (const M& a : in) {
    mpz_class norm = Mod(a.c0 * a.c0 + a.c1 * a.c1, p);
    bool is_square = mpz_legendre(norm.get_mpz_t(), p.get_mpz_t()) != -1;
    if (a.c1 == 0 && mpz_legendre(a.c0.get_mpz_t(), p.get_mpz_t()) == -1) ++fp_non_residues;
    std::optional<Fp2> root = ToFp2(a).Sqrt();
    ASSERT_EQ(root.has_value(), is_square) << a.c0 << ", " << a.c1;
    if (root) {
      M r = Value(*root);
      M sq = Mul(r, r);
      EXPECT_TRUE(sq.c0 == a.c0 && sq.c1 == a.c1) << a.c0 << ", " << a.c1;
      ++squares;
    } else {
      ++non_squares;
    }
  }
  EXPECT_GT(squares, 30);
  EXPECT_GT(non_squares, 20);
  EXPECT_GT(fp_non_residues, 0);
}

}  // namespace
}  // namespace cuzk::ff
