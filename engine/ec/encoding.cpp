#include "engine/ec/encoding.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/util/parallel.hpp"

namespace cuzk::ec {
namespace {

using ff::Endian;
using ff::Fp;
using ff::Fp2;
using ff::u128;

constexpr size_t kFpBytes = 48;
constexpr uint8_t kFlagMask = kFlagCompressed | kFlagInfinity | kFlagSort;

// |z| for the BLS parameter z = -0xd201000000010000.
constexpr uint64_t kAbsZ = 0xd201000000010000ull;

template <size_t N>
constexpr Limbs<N> DivSmall(Limbs<N> a, uint64_t d) {
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a[i];
    a[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  return a;
}

constexpr Limbs<6> kPMinus1Over2 = DivSmall(ff::SubSmall(Fp::kModulus, 1), 2);
constexpr Limbs<6> kPMinus1Over3 = DivSmall(ff::SubSmall(Fp::kModulus, 1), 3);

// The ZCash "sign" of an Fp: y > (p-1)/2.
bool LexicographicallyLargest(const Fp& y) { return !ff::GreaterOrEqual(kPMinus1Over2, y.ToCanonical()); }
bool LexicographicallyLargest(const Fp2& y) { return y.LexicographicallyLargest(); }

// 48 big-endian bytes with the flag bits of the first byte cleared by `first_mask`.
std::optional<Fp> ReadFp(const uint8_t* in, uint8_t first_mask) {
  uint8_t buf[kFpBytes];
  std::memcpy(buf, in, kFpBytes);
  buf[0] &= first_mask;
  return Fp::FromBytes(std::span<const uint8_t>(buf, kFpBytes), Endian::kBig);
}

void WriteFp(const Fp& v, uint8_t* out) { v.ToBytes(std::span<uint8_t>(out, kFpBytes), Endian::kBig); }

// Per-curve pieces: how a coordinate is laid out and how membership is tested.
template <class C>
struct Codec;

template <>
struct Codec<G1Curve> {
  using Field = Fp;
  static constexpr size_t kFieldBytes = kFpBytes;
  static std::optional<Field> Read(const uint8_t* in, uint8_t first_mask) { return ReadFp(in, first_mask); }
  static void Write(const Field& v, uint8_t* out) { WriteFp(v, out); }
  static bool InSubgroup(const G1Affine& p) { return IsInG1Subgroup(p); }
};

template <>
struct Codec<G2Curve> {
  using Field = Fp2;
  static constexpr size_t kFieldBytes = 2 * kFpBytes;
  // c1 first, then c0; only the very first byte carries flags.
  static std::optional<Field> Read(const uint8_t* in, uint8_t first_mask) {
    auto c1 = ReadFp(in, first_mask);
    auto c0 = ReadFp(in + kFpBytes, 0xff);
    if (!c1 || !c0) return std::nullopt;
    return Fp2{*c0, *c1};
  }
  static void Write(const Field& v, uint8_t* out) {
    WriteFp(v.c1, out);
    WriteFp(v.c0, out + kFpBytes);
  }
  static bool InSubgroup(const G2Affine& p) { return IsInG2Subgroup(p); }
};

template <class C>
constexpr size_t EncodedBytes(PointFormat f) {
  return (f == PointFormat::kCompressed ? 1 : 2) * Codec<C>::kFieldBytes;
}

// Infinity: flags already checked; every other bit and byte must be zero.
DecodeError CheckInfinityBody(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  if (bytes[0] & ~kFlagMask) return DecodeError::kMalformedInfinity;
  for (size_t i = 1; i < bytes.size(); ++i) {
    if (bytes[i]) return DecodeError::kMalformedInfinity;
  }
  return opts.allow_infinity ? DecodeError::kOk : DecodeError::kUnexpectedInfinity;
}

template <class C>
DecodeResult<AffinePoint<C>> FinishPoint(const AffinePoint<C>& p, const DecodeOptions& opts) {
  if (opts.check_subgroup && !Codec<C>::InSubgroup(p))
    return DecodeResult<AffinePoint<C>>::Fail(DecodeError::kNotInSubgroup);
  return DecodeResult<AffinePoint<C>>::Ok(p);
}

template <class C>
DecodeResult<AffinePoint<C>> DecodeCompressedT(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  using Result = DecodeResult<AffinePoint<C>>;
  using Field = typename Codec<C>::Field;
  if (bytes.size() != EncodedBytes<C>(PointFormat::kCompressed)) return Result::Fail(DecodeError::kWrongLength);
  const uint8_t flags = bytes[0];
  if (!(flags & kFlagCompressed)) return Result::Fail(DecodeError::kBadFlags);
  if (flags & kFlagInfinity) {
    if (flags & kFlagSort) return Result::Fail(DecodeError::kBadFlags);
    DecodeError e = CheckInfinityBody(bytes, opts);
    return e == DecodeError::kOk ? Result::Ok(AffinePoint<C>::Infinity()) : Result::Fail(e);
  }
  std::optional<Field> x = Codec<C>::Read(bytes.data(), uint8_t(~kFlagMask));
  if (!x) return Result::Fail(DecodeError::kCoordinateNotCanonical);
  std::optional<Field> y = (x->Square() * *x + C::kB()).Sqrt();
  if (!y) return Result::Fail(DecodeError::kNoSquareRoot);
  if (LexicographicallyLargest(*y) != bool(flags & kFlagSort)) *y = -*y;
  return FinishPoint(AffinePoint<C>::FromXY(*x, *y), opts);
}

template <class C>
DecodeResult<AffinePoint<C>> DecodeUncompressedT(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  using Result = DecodeResult<AffinePoint<C>>;
  using Field = typename Codec<C>::Field;
  if (bytes.size() != EncodedBytes<C>(PointFormat::kUncompressed)) return Result::Fail(DecodeError::kWrongLength);
  const uint8_t flags = bytes[0];
  if (flags & (kFlagCompressed | kFlagSort)) return Result::Fail(DecodeError::kBadFlags);
  if (flags & kFlagInfinity) {
    DecodeError e = CheckInfinityBody(bytes, opts);
    return e == DecodeError::kOk ? Result::Ok(AffinePoint<C>::Infinity()) : Result::Fail(e);
  }
  std::optional<Field> x = Codec<C>::Read(bytes.data(), uint8_t(~kFlagMask));
  std::optional<Field> y = Codec<C>::Read(bytes.data() + Codec<C>::kFieldBytes, 0xff);
  if (!x || !y) return Result::Fail(DecodeError::kCoordinateNotCanonical);
  AffinePoint<C> p = AffinePoint<C>::FromXY(*x, *y);
  if (!p.IsOnCurve()) return Result::Fail(DecodeError::kNotOnCurve);
  return FinishPoint(p, opts);
}

template <class C>
void EncodeCompressedT(const AffinePoint<C>& p, uint8_t* out) {
  constexpr size_t n = EncodedBytes<C>(PointFormat::kCompressed);
  if (p.IsInfinity()) {
    std::memset(out, 0, n);
    out[0] = kFlagCompressed | kFlagInfinity;
    return;
  }
  Codec<C>::Write(p.x, out);
  out[0] |= kFlagCompressed | (LexicographicallyLargest(p.y) ? kFlagSort : 0);
}

template <class C>
void EncodeUncompressedT(const AffinePoint<C>& p, uint8_t* out) {
  constexpr size_t n = EncodedBytes<C>(PointFormat::kUncompressed);
  if (p.IsInfinity()) {
    std::memset(out, 0, n);
    out[0] = kFlagInfinity;
    return;
  }
  Codec<C>::Write(p.x, out);
  Codec<C>::Write(p.y, out + Codec<C>::kFieldBytes);
}

// Below this many points per thread, spawning a thread costs more than the
// work it takes over (an on-curve-only uncompressed G1 decode is well under
// a microsecond).
constexpr size_t kMinPointsPerThread = 256;

template <class C>
BatchDecodeResult DecodeBatchT(std::span<const uint8_t> bytes, PointFormat format, std::span<AffinePoint<C>> out,
                               const DecodeOptions& opts, unsigned threads) {
  const size_t stride = EncodedBytes<C>(format);
  if (bytes.size() != out.size() * stride) return {DecodeError::kWrongLength, 0};
  const size_t n = out.size();
  size_t max_threads = std::max<size_t>(1, n / kMinPointsPerThread);
  unsigned use = unsigned(std::min<size_t>(util::ResolveThreads(threads), max_threads));

  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::atomic<size_t> first_bad{kNone};
  std::vector<BatchDecodeResult> chunk_error(use, BatchDecodeResult{DecodeError::kOk, kNone});
  util::ParallelForChunks(n, use, [&](size_t begin, size_t end, size_t chunk) {
    for (size_t i = begin; i < end; ++i) {
      // Points past a known failure need not be decoded; the failure we keep
      // is the lowest-indexed one, which this chunk may still hold.
      if (i > first_bad.load(std::memory_order_relaxed)) return;
      auto bytes_i = bytes.subspan(i * stride, stride);
      DecodeResult<AffinePoint<C>> r = format == PointFormat::kCompressed ? DecodeCompressedT<C>(bytes_i, opts)
                                                                          : DecodeUncompressedT<C>(bytes_i, opts);
      if (!r.ok()) {
        chunk_error[chunk] = {r.error, i};
        size_t seen = first_bad.load(std::memory_order_relaxed);
        while (i < seen && !first_bad.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
        }
        return;
      }
      out[i] = *r.point;
    }
  });
  BatchDecodeResult result;
  for (const auto& e : chunk_error) {
    if (e.error != DecodeError::kOk && (result.ok() || e.index < result.index)) result = e;
  }
  return result;
}

// [|z|] P by double-and-add with mixed additions: 63 doublings + 5 additions.
template <class C>
JacobianPoint<C> MulByAbsZ(const AffinePoint<C>& p) {
  JacobianPoint<C> r = JacobianPoint<C>::FromAffine(p);
  for (int bit = 62; bit >= 0; --bit) {
    r = r.Double();
    if ((kAbsZ >> bit) & 1) r = r.AddMixed(p);
  }
  return r;
}

// phi(x, y) = (beta x, y) acts on G1 as multiplication by -z^2 mod r for this
// cube root of unity beta (the other one, beta^2, gives the other eigenvalue;
// tests check phi(G) == -[z^2] G).
const Fp& G1Beta() {
  static const Fp beta =
      Fp::FromHex("0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
  return beta;
}

// psi(x, y) = (conj(x) / (1+u)^((p-1)/3), conj(y) / (1+u)^((p-1)/2)).
struct PsiCoefficients {
  Fp2 x, y;
};
const PsiCoefficients& G2Psi() {
  static const PsiCoefficients c = [] {
    Fp2 xi{Fp::One(), Fp::One()};  // 1 + u
    return PsiCoefficients{xi.Pow(kPMinus1Over3).Inverse(), xi.Pow(kPMinus1Over2).Inverse()};
  }();
  return c;
}

}  // namespace

std::string_view DecodeErrorName(DecodeError e) {
  switch (e) {
    case DecodeError::kOk: return "kOk";
    case DecodeError::kWrongLength: return "kWrongLength";
    case DecodeError::kBadFlags: return "kBadFlags";
    case DecodeError::kMalformedInfinity: return "kMalformedInfinity";
    case DecodeError::kCoordinateNotCanonical: return "kCoordinateNotCanonical";
    case DecodeError::kNoSquareRoot: return "kNoSquareRoot";
    case DecodeError::kNotOnCurve: return "kNotOnCurve";
    case DecodeError::kNotInSubgroup: return "kNotInSubgroup";
    case DecodeError::kUnexpectedInfinity: return "kUnexpectedInfinity";
  }
  return "kUnknown";
}

std::string_view DecodeErrorMessage(DecodeError e) {
  switch (e) {
    case DecodeError::kOk: return "ok";
    case DecodeError::kWrongLength: return "encoded point has the wrong length";
    case DecodeError::kBadFlags:
      return "flag bits are inconsistent (compression bit vs length, sort bit on an uncompressed or infinity point)";
    case DecodeError::kMalformedInfinity: return "point at infinity has non-zero coordinate bits";
    case DecodeError::kCoordinateNotCanonical: return "coordinate is not below the field modulus";
    case DecodeError::kNoSquareRoot: return "compressed x has no matching y on the curve";
    case DecodeError::kNotOnCurve: return "point is not on the curve";
    case DecodeError::kNotInSubgroup: return "point is not in the prime-order subgroup";
    case DecodeError::kUnexpectedInfinity: return "point at infinity is not allowed here";
  }
  return "unknown decode error";
}

G1Compressed EncodeCompressed(const G1Affine& p) {
  G1Compressed out;
  EncodeCompressedT(p, out.data());
  return out;
}
G1Uncompressed EncodeUncompressed(const G1Affine& p) {
  G1Uncompressed out;
  EncodeUncompressedT(p, out.data());
  return out;
}
G2Compressed EncodeCompressed(const G2Affine& p) {
  G2Compressed out;
  EncodeCompressedT(p, out.data());
  return out;
}
G2Uncompressed EncodeUncompressed(const G2Affine& p) {
  G2Uncompressed out;
  EncodeUncompressedT(p, out.data());
  return out;
}

void EncodeCompressed(const G1Affine& p, std::span<uint8_t, kG1CompressedBytes> out) {
  EncodeCompressedT(p, out.data());
}
void EncodeUncompressed(const G1Affine& p, std::span<uint8_t, kG1UncompressedBytes> out) {
  EncodeUncompressedT(p, out.data());
}
void EncodeCompressed(const G2Affine& p, std::span<uint8_t, kG2CompressedBytes> out) {
  EncodeCompressedT(p, out.data());
}
void EncodeUncompressed(const G2Affine& p, std::span<uint8_t, kG2UncompressedBytes> out) {
  EncodeUncompressedT(p, out.data());
}

DecodeResult<G1Affine> DecodeG1Compressed(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  return DecodeCompressedT<G1Curve>(bytes, opts);
}
DecodeResult<G1Affine> DecodeG1Uncompressed(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  return DecodeUncompressedT<G1Curve>(bytes, opts);
}
DecodeResult<G2Affine> DecodeG2Compressed(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  return DecodeCompressedT<G2Curve>(bytes, opts);
}
DecodeResult<G2Affine> DecodeG2Uncompressed(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  return DecodeUncompressedT<G2Curve>(bytes, opts);
}

DecodeResult<G1Affine> DecodeG1(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  if (bytes.size() == kG1CompressedBytes) return DecodeCompressedT<G1Curve>(bytes, opts);
  if (bytes.size() == kG1UncompressedBytes) return DecodeUncompressedT<G1Curve>(bytes, opts);
  return DecodeResult<G1Affine>::Fail(DecodeError::kWrongLength);
}
DecodeResult<G2Affine> DecodeG2(std::span<const uint8_t> bytes, const DecodeOptions& opts) {
  if (bytes.size() == kG2CompressedBytes) return DecodeCompressedT<G2Curve>(bytes, opts);
  if (bytes.size() == kG2UncompressedBytes) return DecodeUncompressedT<G2Curve>(bytes, opts);
  return DecodeResult<G2Affine>::Fail(DecodeError::kWrongLength);
}

BatchDecodeResult DecodeG1Batch(std::span<const uint8_t> bytes, PointFormat format, std::span<G1Affine> out,
                                const DecodeOptions& opts, unsigned threads) {
  return DecodeBatchT<G1Curve>(bytes, format, out, opts, threads);
}
BatchDecodeResult DecodeG2Batch(std::span<const uint8_t> bytes, PointFormat format, std::span<G2Affine> out,
                                const DecodeOptions& opts, unsigned threads) {
  return DecodeBatchT<G2Curve>(bytes, format, out, opts, threads);
}

bool IsInG1Subgroup(const G1Affine& p) {
  if (p.IsInfinity()) return true;
  // -[z^2] P == phi(P)  <=>  [|z|]([|z|] P) == -phi(P).
  G1Jacobian z2p = MulByAbsZ(p).MulLimbs(Limbs<1>{kAbsZ});
  G1Affine minus_phi = G1Affine::FromXY(p.x * G1Beta(), -p.y);
  return z2p == G1Jacobian::FromAffine(minus_phi);
}

bool IsInG2Subgroup(const G2Affine& p) {
  if (p.IsInfinity()) return true;
  // [z] P == psi(P)  <=>  [|z|] P == -psi(P).
  const PsiCoefficients& c = G2Psi();
  G2Affine minus_psi = G2Affine::FromXY(p.x.Conjugate() * c.x, -(p.y.Conjugate() * c.y));
  return MulByAbsZ(p) == G2Jacobian::FromAffine(minus_psi);
}

}  // namespace cuzk::ec
