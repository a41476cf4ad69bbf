#pragma once
// SHA-256 with bellperson's exact constraint structure (gadgets/sha256.rs):
// the message schedule and rounds on UInt32s, every 32-bit addition through
// one MultiEq per block, e and a kept as deferred operand lists so that each
// round's two additions become one addmany each (snapdeals spec 6.2).
//
//   std::vector<Boolean> digest = Sha256(cs, message_bits);   // 256 bits, standard order
//
// Anchors (bellperson tests): one compression of 512 allocated bits = 25,840
// rows; sha256 of 512 allocated bits (two blocks) = 44,874 rows.
#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/uint32.hpp"
#include "engine/circuits/snapdeals/native/sha256_constants.hpp"

namespace cuzk::snapdeals::gadgets {

inline std::array<UInt32, 8> Sha256IvWords() {
  std::array<UInt32, 8> iv;
  for (unsigned i = 0; i < 8; ++i) iv[i] = UInt32::Constant(kSha256Iv[i]);
  return iv;
}

namespace internal {

// bellperson's `Maybe`: a word known now, or the operands of its pending addmany.
struct DeferredWord {
  bool concrete = true;
  UInt32 word;
  std::vector<UInt32> operands;

  template <class CS>
  UInt32 Compute(MultiEq<CS>& me, std::initializer_list<UInt32> others) {
    if (concrete) return word;
    operands.insert(operands.end(), others.begin(), others.end());
    return AddMany(me, std::span<const UInt32>(operands));
  }
};

}  // namespace internal

// sha256_compression_function: one 512-bit block (Booleans, message order)
// into the current hash words.
template <class CS>
std::array<UInt32, 8> Sha256Compression(CS& cs, std::span<const Boolean> input, const std::array<UInt32, 8>& cur) {
  if (input.size() != 512) throw std::invalid_argument("Sha256Compression needs a 512-bit block");
  std::array<UInt32, 64> w;
  for (unsigned i = 0; i < 16; ++i) w[i] = UInt32::FromBitsBe(input.subspan(32 * i, 32));

  MultiEq<CS> me(cs);
  for (unsigned i = 16; i < 64; ++i) {
    auto ns = r1cs::Namespace(cs, [i] { return "w extension " + std::to_string(i); });
    UInt32 s0 = Xor(cs, w[i - 15].Rotr(7), w[i - 15].Rotr(18));
    s0 = Xor(cs, s0, w[i - 15].Shr(3));
    UInt32 s1 = Xor(cs, w[i - 2].Rotr(17), w[i - 2].Rotr(19));
    s1 = Xor(cs, s1, w[i - 2].Shr(10));
    w[i] = AddMany(me, {w[i - 16], s0, w[i - 7], s1});
  }

  internal::DeferredWord a{true, cur[0], {}}, e{true, cur[4], {}};
  UInt32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
  for (unsigned i = 0; i < 64; ++i) {
    auto ns = r1cs::Namespace(cs, [i] { return "compression round " + std::to_string(i); });
    UInt32 new_e = e.Compute(me, {});
    UInt32 s1 = Xor(cs, new_e.Rotr(6), new_e.Rotr(11));
    s1 = Xor(cs, s1, new_e.Rotr(25));
    UInt32 ch = Sha256Ch(cs, new_e, f, g);
    UInt32 k = UInt32::Constant(kSha256RoundConstants[i]);

    UInt32 new_a = a.Compute(me, {});
    UInt32 s0 = Xor(cs, new_a.Rotr(2), new_a.Rotr(13));
    s0 = Xor(cs, s0, new_a.Rotr(22));
    UInt32 maj = Sha256Maj(cs, new_a, b, c);

    // temp1 = [h, S1, ch, K_i, w_i]; e := d + temp1, a := temp1 + S0 + maj (deferred).
    internal::DeferredWord next_e{false, {}, {h, s1, ch, k, w[i], d}};
    internal::DeferredWord next_a{false, {}, {h, s1, ch, k, w[i], s0, maj}};
    h = g;
    g = f;
    f = new_e;
    e = std::move(next_e);
    d = c;
    c = b;
    b = new_a;
    a = std::move(next_a);
  }
  std::array<UInt32, 8> out;
  {
    auto ns = r1cs::Namespace(cs, "final additions");
    out[0] = a.Compute(me, {cur[0]});
    out[1] = AddMany(me, {cur[1], b});
    out[2] = AddMany(me, {cur[2], c});
    out[3] = AddMany(me, {cur[3], d});
    out[4] = e.Compute(me, {cur[4]});
    out[5] = AddMany(me, {cur[5], f});
    out[6] = AddMany(me, {cur[6], g});
    out[7] = AddMany(me, {cur[7], h});
  }
  me.Finish();
  return out;
}

// sha256 of a bit string (a multiple of 8 bits, message order): padding with
// constants, then one compression per 512-bit block. Returns the 256 digest
// bits in standard order (word 0 first, each word most significant bit first).
template <class CS>
std::vector<Boolean> Sha256(CS& cs, std::span<const Boolean> input) {
  if (input.size() % 8) throw std::invalid_argument("Sha256 input must be whole bytes");
  std::vector<Boolean> padded(input.begin(), input.end());
  const uint64_t len = input.size();
  padded.push_back(Boolean::Constant(true));
  while ((padded.size() + 64) % 512) padded.push_back(Boolean::Constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::Constant((len >> i) & 1));

  std::array<UInt32, 8> cur = Sha256IvWords();
  for (size_t blk = 0; blk < padded.size() / 512; ++blk) {
    auto ns = r1cs::Namespace(cs, [blk] { return "block " + std::to_string(blk); });
    cur = Sha256Compression(cs, std::span<const Boolean>(padded).subspan(512 * blk, 512), cur);
  }
  std::vector<Boolean> out;
  out.reserve(256);
  for (const UInt32& word : cur)
    for (int j = 31; j >= 0; --j) out.push_back(word.bits[j]);
  return out;
}

}  // namespace cuzk::snapdeals::gadgets
