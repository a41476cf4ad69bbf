#pragma once
// The ZCash serialization of BLS12-381 points, as bellperson, zkcrypto/bls12_381,
// blst and @noble/curves write it:
//
//   G1 compressed 48 bytes  = x             G1 uncompressed  96 bytes = x || y
//   G2 compressed 96 bytes  = x.c1 || x.c0  G2 uncompressed 192 bytes = x.c1 || x.c0 || y.c1 || y.c0
//
// Each Fp is 48 bytes big-endian. p < 2^381 leaves the top three bits of the
// first byte free for flags:
//   0x80  compressed (must agree with the length)
//   0x40  point at infinity (every other bit and byte must then be zero)
//   0x20  compressed only: y is the lexicographically larger of y and -y
//         (Fp: y > (p-1)/2; Fp2: compare c1, then c0 when c1 == 0).
//
// Decoding validates fully and names the first failed check (in this order:
// length, flags, infinity form, x canonical, y canonical / square root exists,
// on the curve, in the subgroup). The subgroup check can be skipped for large
// trusted inputs (bellperson reads the .params query sections that way); the
// on-curve check never is, since off-curve points break the addition formulas.
//
// Usage:
//   G1Compressed bytes = EncodeCompressed(p);
//   DecodeResult<G1Affine> r = DecodeG1(bytes);
//   if (!r.ok()) return Error(DecodeErrorMessage(r.error));
//   G1Affine q = *r.point;
//
//   std::vector<G1Affine> pts(n);
//   BatchDecodeResult b = DecodeG1Batch(section, PointFormat::kUncompressed, pts,
//                                       {.check_subgroup = false, .allow_infinity = false});
//   if (!b.ok()) ... b.index is the first bad point ...
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"

namespace cuzk::ec {

inline constexpr size_t kG1CompressedBytes = 48;
inline constexpr size_t kG1UncompressedBytes = 96;
inline constexpr size_t kG2CompressedBytes = 96;
inline constexpr size_t kG2UncompressedBytes = 192;

inline constexpr uint8_t kFlagCompressed = 0x80;
inline constexpr uint8_t kFlagInfinity = 0x40;
inline constexpr uint8_t kFlagSort = 0x20;

using G1Compressed = std::array<uint8_t, kG1CompressedBytes>;
using G1Uncompressed = std::array<uint8_t, kG1UncompressedBytes>;
using G2Compressed = std::array<uint8_t, kG2CompressedBytes>;
using G2Uncompressed = std::array<uint8_t, kG2UncompressedBytes>;

enum class PointFormat { kCompressed, kUncompressed };

enum class DecodeError : uint8_t {
  kOk = 0,
  kWrongLength,             // not the size of the requested (or any) encoding
  kBadFlags,                // compression bit disagrees with the length, sort bit on an
                            // uncompressed point, or sort bit together with infinity
  kMalformedInfinity,       // infinity bit set but another bit or byte is non-zero
  kCoordinateNotCanonical,  // a coordinate (an Fp of it) is >= p
  kNoSquareRoot,            // compressed x with no y: x^3 + b is not a square
  kNotOnCurve,              // uncompressed (x, y) does not satisfy y^2 = x^3 + b
  kNotInSubgroup,           // on the curve but not in the order-r subgroup
  kUnexpectedInfinity,      // a valid infinity where DecodeOptions::allow_infinity is false
};

// "kNotOnCurve" etc.: stable names for logs and tests.
std::string_view DecodeErrorName(DecodeError e);
// One sentence for users ("point is not on the curve").
std::string_view DecodeErrorMessage(DecodeError e);

struct DecodeOptions {
  // false: on-curve check only, for trusted inputs. An uncompressed G1 point
  // then decodes in ~0.5 us instead of ~100 us (tests/bench/field_bench.cpp).
  bool check_subgroup = true;
  // false: the (well-formed) point at infinity is rejected with
  // kUnexpectedInfinity (proofs and the .params query sections forbid it).
  bool allow_infinity = true;
};

// point is set exactly when error == kOk.
template <class Point>
struct DecodeResult {
  std::optional<Point> point;
  DecodeError error = DecodeError::kOk;

  bool ok() const { return error == DecodeError::kOk; }
  static DecodeResult Ok(const Point& p) { return {p, DecodeError::kOk}; }
  static DecodeResult Fail(DecodeError e) { return {std::nullopt, e}; }
};

// Batch outcome: on failure, `index` is the smallest index of a point that
// failed and `error` its error; the contents of `out` are then unspecified.
// A byte count that is not out.size() times the encoding size gives
// kWrongLength with index 0.
struct BatchDecodeResult {
  DecodeError error = DecodeError::kOk;
  size_t index = 0;
  bool ok() const { return error == DecodeError::kOk; }
};

// ---- encoding (any affine point, including infinity) ----------------------------
G1Compressed EncodeCompressed(const G1Affine& p);
G1Uncompressed EncodeUncompressed(const G1Affine& p);
G2Compressed EncodeCompressed(const G2Affine& p);
G2Uncompressed EncodeUncompressed(const G2Affine& p);

// Writers into caller memory (file buffers).
void EncodeCompressed(const G1Affine& p, std::span<uint8_t, kG1CompressedBytes> out);
void EncodeUncompressed(const G1Affine& p, std::span<uint8_t, kG1UncompressedBytes> out);
void EncodeCompressed(const G2Affine& p, std::span<uint8_t, kG2CompressedBytes> out);
void EncodeUncompressed(const G2Affine& p, std::span<uint8_t, kG2UncompressedBytes> out);

// ---- decoding -----------------------------------------------------------------
// Exact format: the length must be that format's, the compression bit must agree.
DecodeResult<G1Affine> DecodeG1Compressed(std::span<const uint8_t> bytes, const DecodeOptions& opts = {});
DecodeResult<G1Affine> DecodeG1Uncompressed(std::span<const uint8_t> bytes, const DecodeOptions& opts = {});
DecodeResult<G2Affine> DecodeG2Compressed(std::span<const uint8_t> bytes, const DecodeOptions& opts = {});
DecodeResult<G2Affine> DecodeG2Uncompressed(std::span<const uint8_t> bytes, const DecodeOptions& opts = {});

// Format from the length (48/96 for G1, 96/192 for G2); the compression bit must
// then agree with it (kBadFlags otherwise), any other length is kWrongLength.
DecodeResult<G1Affine> DecodeG1(std::span<const uint8_t> bytes, const DecodeOptions& opts = {});
DecodeResult<G2Affine> DecodeG2(std::span<const uint8_t> bytes, const DecodeOptions& opts = {});

// Contiguous arrays of one format (parameter file sections), decoded on up to
// `threads` threads (0 = all hardware threads) with util::ParallelForChunks.
// Threads stop early once a lower-indexed error is known, so a corrupt file
// fails fast; the reported error is still the first one by index.
BatchDecodeResult DecodeG1Batch(std::span<const uint8_t> bytes, PointFormat format, std::span<G1Affine> out,
                                const DecodeOptions& opts = {}, unsigned threads = 0);
BatchDecodeResult DecodeG2Batch(std::span<const uint8_t> bytes, PointFormat format, std::span<G2Affine> out,
                                const DecodeOptions& opts = {}, unsigned threads = 0);

// ---- subgroup membership --------------------------------------------------------
// Endomorphism tests (Scott, "A note on group membership tests for G1, G2 and GT
// on BLS pairing-friendly curves", ePrint 2021/1130, proof of exactness in
// 2022/352; as zkcrypto/bls12_381 is_torsion_free):
//   G1: phi(P) == -[z^2] P, phi(x, y) = (beta x, y), beta a cube root of unity;
//   G2: psi(P) == [z] P, psi the untwist-Frobenius-twist endomorphism;
// z = -0xd201000000010000 (64 bits, weight 6). Cost: 126 (G1) / 63 (G2)
// doublings and 10 / 5 additions instead of the 254 doublings and 133
// additions of the generic [r]P == O; measured (field_bench, one Xeon core of
// the H200 host): G1 73 us vs 275 us, G2 106 us vs 863 us.
// Precondition: P is on the curve.
bool IsInG1Subgroup(const G1Affine& p);
bool IsInG2Subgroup(const G2Affine& p);

}  // namespace cuzk::ec
