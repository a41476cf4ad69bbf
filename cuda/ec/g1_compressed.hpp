#pragma once
// G1 points in 48 bytes for the device, and their decompression there (issue
// 17: a key image whose H section is half the bytes on the disk;
// docs/perf/cold-start-next.md): the key image's "h48" section
// (groth16::KeySection::kHCompressed) in these records, decompressed by
// KeyImageUploader::UploadCompressedH; its throughput in
// `cuzk-gpu-bench decompress`.
//
// Record: x in the device's Montgomery form (12 little-endian 32-bit limbs,
// as the key image stores coordinates), with two flags in the top limb's top
// bits, free because x < p < 2^381:
//   bit 383 (kInfinityBit)  the point at infinity (every other bit 0);
//   bit 382 (kLargerYBit)   y is the larger of the two roots as a canonical
//                           integer (y > (p - 1) / 2), Zcash's sign rule.
// Decompression: y = (x^3 + 4)^((p+1)/4) (p = 3 mod 4), checked by squaring,
// then negated to the flagged root. ~380 squarings and ~190 multiplications
// by square-and-multiply; a record that is not a point (x >= p, x^3 + 4 not a
// square, flags that do not fit) is refused, never turned into a wrong point.
// No subgroup check: the key image's digests guarantee the bytes that were
// written from a validated .params.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fp.hpp"
#include "cuda/ff/host_device.hpp"
#include "engine/ec/g1.hpp"

namespace cuzk::cuda {

struct CompressedG1 {
  uint32_t limbs[12];
};
static_assert(sizeof(CompressedG1) == 48);

namespace g1_compressed {

constexpr uint32_t kInfinityBit = 1u << 31, kLargerYBit = 1u << 30;  // in limb 11

// Limb i of (p + 1) / 4 (p + 1 has no carry past limb 11: p < 2^381).
CUZK_HD constexpr uint32_t SqrtExponent(int i) {
  uint64_t carry = 1;
  uint32_t plus[12] = {};
  for (int j = 0; j < 12; ++j) {
    const uint64_t s = uint64_t(Fp::Mod(j)) + carry;
    plus[j] = uint32_t(s);
    carry = s >> 32;
  }
  const uint32_t high = i + 1 < 12 ? plus[i + 1] : 0u;
  return (plus[i] >> 2) | (high << 30);
}

// Limb i of (p - 1) / 2.
CUZK_HD constexpr uint32_t HalfModulus(int i) {
  const uint32_t high = i + 1 < 12 ? Fp::Mod(i + 1) : 0u;
  return ((Fp::Mod(i) - (i == 0 ? 1u : 0u)) >> 1) | (high << 31);  // p is odd: p - 1 only clears bit 0
}

// a^((p+1)/4): a square root of a when a is a square.
CUZK_HD Fp SqrtCandidate(const Fp& a) {
  Fp r = Fp::One();
  for (int i = 11; i >= 0; --i) {
    const uint32_t e = SqrtExponent(i);
    for (int bit = 31; bit >= 0; --bit) {
      r = r.Square();
      if ((e >> bit) & 1) r = r * a;
    }
  }
  return r;
}

// The canonical integer of Montgomery-form a is above (p - 1) / 2.
CUZK_HD bool IsLarger(const Fp& a) {
  Fp raw_one = Fp::Zero();
  raw_one.limb(0) = 1;
  const Fp c = Fp::Multiply(a, raw_one);  // a R^-1: the canonical value
  for (int i = 11; i >= 0; --i) {
    if (c.limb(i) != HalfModulus(i)) return c.limb(i) > HalfModulus(i);
  }
  return false;
}

}  // namespace g1_compressed

// The point of a record into `out`; false (out untouched) when the record is
// not a point's.
CUZK_HD bool DecompressG1(const CompressedG1& in, AffinePoint<Fp>& out) {
  using namespace g1_compressed;
  const uint32_t flags = in.limbs[11] & (kInfinityBit | kLargerYBit);
  Fp x = Fp::Zero();
  for (int i = 0; i < 12; ++i) x.limb(i) = in.limbs[i];
  x.limb(11) &= ~(kInfinityBit | kLargerYBit);
  if (flags & kInfinityBit) {
    if (flags != kInfinityBit || !x.IsZero()) return false;
    out = AffinePoint<Fp>::Infinity();
    return true;
  }
  for (int i = 11; i >= 0; --i) {  // x < p
    if (x.limb(i) != Fp::Mod(i)) {
      if (x.limb(i) > Fp::Mod(i)) return false;
      break;
    }
    if (i == 0) return false;  // x == p
  }
  const Fp four = Fp::One().Double().Double();
  const Fp rhs = x.Square() * x + four;
  Fp y = SqrtCandidate(rhs);
  if (!(y.Square() - rhs).IsZero()) return false;
  if (y.IsZero()) return false;  // no point of G1 has y = 0 (no 2-torsion)
  if (IsLarger(y) != ((flags & kLargerYBit) != 0)) y = -y;
  out = {x, y};
  return true;
}

// Host: the record of an engine point.
inline CompressedG1 CompressG1ForDevice(const ec::G1Affine& p) {
  CompressedG1 c{};
  if (p.IsInfinity()) {
    c.limbs[11] = g1_compressed::kInfinityBit;
    return c;
  }
  const AffinePoint<Fp> d = AffineFromHost<Fp>(p);
  for (int i = 0; i < 12; ++i) c.limbs[i] = d.x.limb(i);
  if (g1_compressed::IsLarger(d.y)) c.limbs[11] |= g1_compressed::kLargerYBit;
  return c;
}

// Device: out[i] = the point of in[i] for i < n; the lowest index_base + i
// of a record that is not a point's goes to *first_bad (atomicMin: set it
// above every index before), on `stream`. index_base: the records' place in
// a larger array decompressed in pieces (the key image's chunks).
void LaunchDecompressG1(size_t n, const CompressedG1* in, AffinePoint<Fp>* out, unsigned long long* first_bad,
                        cudaStream_t stream, uint64_t index_base = 0);

}  // namespace cuzk::cuda
