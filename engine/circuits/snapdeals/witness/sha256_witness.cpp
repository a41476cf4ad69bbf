#include "engine/circuits/snapdeals/witness/sha256_witness.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>

#include "engine/circuits/snapdeals/native/sha256_constants.hpp"

namespace cuzk::snapdeals::witness {
namespace {

using ff::Fr;

// 32 Booleans at once. For bit j: cst = constant, val = the value the Boolean
// stands for, neg = negated view of a variable (Boolean::Not). Invariant:
// neg & cst == 0. A variable bit's variable holds val ^ neg.
struct Word {
  uint32_t val = 0, cst = 0, neg = 0;
};

Word Constant(uint32_t v) { return {v, ~0u, 0}; }
Word Variable(uint32_t v) { return {v, 0, 0}; }
Word Rotr(const Word& w, int k) { return {std::rotr(w.val, k), std::rotr(w.cst, k), std::rotr(w.neg, k)}; }
Word Shr(const Word& w, int k) { return {w.val >> k, (w.cst >> k) | (~0u << (32 - k)), w.neg >> k}; }  // 0 < k < 32
Word Not(const Word& w) { return {~w.val, w.cst, w.neg ^ ~w.cst}; }
uint32_t VariableValues(const Word& w) { return w.val ^ w.neg; }

class Emitter {
 public:
  explicit Emitter(Fr* out) : out_(out) {}
  // The bits of `values` selected by `mask`, lowest first.
  void Bits(uint32_t mask, uint32_t values) {
    while (mask) {
      const int j = std::countr_zero(mask);
      *out_++ = Bit((values >> j) & 1);
      mask &= mask - 1;
    }
  }
  // Per bit j (lowest first): values1's bit if in mask1, then values2's bit if in mask2.
  void Bits2(uint32_t mask1, uint32_t values1, uint32_t mask2, uint32_t values2) {
    uint32_t m = mask1 | mask2;
    while (m) {
      const int j = std::countr_zero(m);
      if ((mask1 >> j) & 1) *out_++ = Bit((values1 >> j) & 1);
      if ((mask2 >> j) & 1) *out_++ = Bit((values2 >> j) & 1);
      m &= m - 1;
    }
  }
  void LowBits(uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) *out_++ = Bit((v >> i) & 1);
  }
  void Value(const Fr& x) { *out_++ = x; }
  Fr* position() const { return out_; }

 private:
  static const Fr& Bit(uint32_t b) {
    static const Fr kZero = Fr::Zero(), kOne = Fr::One();
    return b ? kOne : kZero;
  }
  Fr* out_;
};

// Boolean::xor per bit: constants pass the other operand through (negated
// for a constant 1); two variables allocate their xor, negated when exactly
// one of them is a negated view.
Word Xor(const Word& a, const Word& b, Emitter& e) {
  e.Bits(~a.cst & ~b.cst, VariableValues(a) ^ VariableValues(b));
  Word r;
  r.val = a.val ^ b.val;
  r.cst = a.cst & b.cst;
  r.neg = (a.neg ^ b.neg ^ (a.cst & a.val) ^ (b.cst & b.val)) & ~r.cst;
  return r;
}

// Boolean::and per bit, without emitting: a constant 0 gives 0, a constant 1
// passes the other through; two variables allocate and/and_not/nor, whose
// value is the AND of what the operands stand for in every case.
struct AndResult {
  Word w;
  uint32_t alloc;   // bits that allocate
  uint32_t values;  // their variable values
};

AndResult And(const Word& a, const Word& b) {
  AndResult r;
  r.alloc = ~a.cst & ~b.cst;
  r.values = a.val & b.val;
  r.w.val = a.val & b.val;
  r.w.cst = (a.cst & b.cst) | (a.cst & ~a.val) | (b.cst & ~b.val);
  r.w.neg = ((a.cst & a.val & b.neg) | (b.cst & b.val & a.neg)) & ~r.w.cst;
  return r;
}

// Merges the per-bit cases of ch/maj: for the bits of `mask`, the result
// (possibly negated) and allocation of one And.
struct Cases {
  Word w;
  uint32_t alloc = 0, values = 0;

  void Take(uint32_t mask, const Word& x) {
    w.cst |= x.cst & mask;
    w.neg |= x.neg & mask;
  }
  void TakeAnd(uint32_t mask, const AndResult& r, bool negate) {
    Take(mask, negate ? Not(r.w) : r.w);
    alloc |= r.alloc & mask;
    values |= r.values & mask;
  }
};

// Boolean::sha256_ch per bit (first matching rule): all constant; a = 0 -> c;
// b = 0 -> and(!a, c); c = 0 -> and(a, b); c = 1 -> !and(a, !b);
// b = 1 -> !and(!a, !c); otherwise allocate ch.
Word Ch(const Word& a, const Word& b, const Word& c, Emitter& e) {
  const uint32_t value = (a.val & b.val) ^ (~a.val & c.val);
  uint32_t rest = ~(a.cst & b.cst & c.cst);
  Cases out;
  out.w.cst = ~rest;
  const uint32_t a0 = rest & a.cst & ~a.val;
  out.Take(a0, c);
  rest &= ~a0;
  const uint32_t b0 = rest & b.cst & ~b.val;
  out.TakeAnd(b0, And(Not(a), c), false);
  rest &= ~b0;
  const uint32_t c0 = rest & c.cst & ~c.val;
  out.TakeAnd(c0, And(a, b), false);
  rest &= ~c0;
  const uint32_t c1 = rest & c.cst & c.val;
  out.TakeAnd(c1, And(a, Not(b)), true);
  rest &= ~c1;
  const uint32_t b1 = rest & b.cst & b.val;
  out.TakeAnd(b1, And(Not(a), Not(c)), true);
  rest &= ~b1;
  out.alloc |= rest;  // the general case (a may be a constant 1)
  out.values |= rest & value;
  e.Bits(out.alloc, out.values);
  out.w.val = value;
  return out.w;
}

// Boolean::sha256_maj per bit: all constant; a = 0 -> and(b, c); b = 0 ->
// and(a, c); c = 0 -> and(a, b); c = 1 -> !and(!a, !b); b = 1 -> !and(!a, !c);
// a = 1 -> !and(!b, !c); otherwise allocate maj, then and(b, c).
Word Maj(const Word& a, const Word& b, const Word& c, Emitter& e) {
  const uint32_t value = (a.val & b.val) ^ (a.val & c.val) ^ (b.val & c.val);
  uint32_t rest = ~(a.cst & b.cst & c.cst);
  Cases out;
  out.w.cst = ~rest;
  auto take = [&](uint32_t mask, const AndResult& r, bool negate) {
    out.TakeAnd(mask, r, negate);
    rest &= ~mask;
  };
  take(rest & a.cst & ~a.val, And(b, c), false);
  take(rest & b.cst & ~b.val, And(a, c), false);
  take(rest & c.cst & ~c.val, And(a, b), false);
  take(rest & c.cst & c.val, And(Not(a), Not(b)), true);
  take(rest & b.cst & b.val, And(Not(a), Not(c)), true);
  take(rest & a.cst & a.val, And(Not(b), Not(c)), true);
  // General case: maj first, then b AND c (two variables: always allocated).
  e.Bits2(out.alloc | rest, out.values | (rest & value), rest, b.val & c.val);
  out.w.val = value;
  return out.w;
}

// UInt32::addmany: constant if every operand bit is constant, else the
// n = bitlen(len * (2^32 - 1)) low bits of the un-reduced sum.
Word AddMany(std::initializer_list<Word> ops, Emitter& e) {
  uint32_t all_cst = ~0u;
  uint64_t sum = 0;
  for (const Word& w : ops) {
    all_cst &= w.cst;
    sum += w.val;
  }
  if (all_cst == ~0u) return Constant(uint32_t(sum));
  e.LowBits(sum, unsigned(std::bit_width(uint64_t(ops.size()) * 0xffffffffull)));
  return Variable(uint32_t(sum));
}

// A word of the state that is either known or the operands of a pending addmany.
struct Deferred {
  bool concrete = true;
  Word word;
  std::array<Word, 8> ops{};
  unsigned n = 0;
};

Word Compute(const Deferred& d, Emitter& e) {
  if (d.concrete) return d.word;
  if (d.n == 6) return AddMany({d.ops[0], d.ops[1], d.ops[2], d.ops[3], d.ops[4], d.ops[5]}, e);
  return AddMany({d.ops[0], d.ops[1], d.ops[2], d.ops[3], d.ops[4], d.ops[5], d.ops[6]}, e);
}
Word Compute(const Deferred& d, const Word& other, Emitter& e) {
  if (d.n == 6) return AddMany({d.ops[0], d.ops[1], d.ops[2], d.ops[3], d.ops[4], d.ops[5], other}, e);
  return AddMany({d.ops[0], d.ops[1], d.ops[2], d.ops[3], d.ops[4], d.ops[5], d.ops[6], other}, e);
}

// sha256_compression_function, in the gadget's allocation order.
std::array<Word, 8> Compress(const std::array<Word, 16>& block, const std::array<Word, 8>& cur, Emitter& e) {
  std::array<Word, 64> w;
  for (unsigned i = 0; i < 16; ++i) w[i] = block[i];
  for (unsigned i = 16; i < 64; ++i) {
    Word s0 = Xor(Rotr(w[i - 15], 7), Rotr(w[i - 15], 18), e);
    s0 = Xor(s0, Shr(w[i - 15], 3), e);
    Word s1 = Xor(Rotr(w[i - 2], 17), Rotr(w[i - 2], 19), e);
    s1 = Xor(s1, Shr(w[i - 2], 10), e);
    w[i] = AddMany({w[i - 16], s0, w[i - 7], s1}, e);
  }
  Deferred a{true, cur[0]}, ee{true, cur[4]};
  Word b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
  for (unsigned i = 0; i < 64; ++i) {
    const Word new_e = Compute(ee, e);
    Word s1 = Xor(Rotr(new_e, 6), Rotr(new_e, 11), e);
    s1 = Xor(s1, Rotr(new_e, 25), e);
    const Word ch = Ch(new_e, f, g, e);
    const Word k = Constant(kSha256RoundConstants[i]);
    const Word new_a = Compute(a, e);
    Word s0 = Xor(Rotr(new_a, 2), Rotr(new_a, 13), e);
    s0 = Xor(s0, Rotr(new_a, 22), e);
    const Word maj = Maj(new_a, b, c, e);
    Deferred next_e{false, {}, {h, s1, ch, k, w[i], d}, 6};
    Deferred next_a{false, {}, {h, s1, ch, k, w[i], s0, maj}, 7};
    h = g;
    g = f;
    f = new_e;
    ee = next_e;
    d = c;
    c = b;
    b = new_a;
    a = next_a;
  }
  std::array<Word, 8> out;
  out[0] = Compute(a, cur[0], e);
  out[1] = AddMany({cur[1], b}, e);
  out[2] = AddMany({cur[2], c}, e);
  out[3] = AddMany({cur[3], d}, e);
  out[4] = Compute(ee, cur[4], e);
  out[5] = AddMany({cur[5], f}, e);
  out[6] = AddMany({cur[6], g}, e);
  out[7] = AddMany({cur[7], h}, e);
  return out;
}

}  // namespace

Fr TreeDHashWitness(const Fr& left, const Fr& right, Fr* out) {
  Emitter e(out);
  std::array<uint8_t, 64> bytes;
  left.ToBytes(std::span<uint8_t>(bytes).first(32), ff::Endian::kLittle);
  right.ToBytes(std::span<uint8_t>(bytes).subspan(32), ff::Endian::kLittle);
  // to_bits_le of each input: 255 bits.
  for (unsigned half = 0; half < 2; ++half) {
    for (unsigned i = 0; i < 255; ++i) e.LowBits((bytes[32 * half + i / 8] >> (i % 8)) & 1, 1);
  }
  // Block 1: the 64 bytes as big-endian words; bit 255 of each input (bit 7
  // of words 7 and 15) is the constant 0 that pads the 255 bits to 32 bytes.
  std::array<Word, 16> block;
  for (unsigned i = 0; i < 16; ++i) {
    const uint32_t v = uint32_t(bytes[4 * i]) << 24 | uint32_t(bytes[4 * i + 1]) << 16 |
                       uint32_t(bytes[4 * i + 2]) << 8 | bytes[4 * i + 3];
    block[i] = {v, (i == 7 || i == 15) ? 0x80u : 0u, 0};
  }
  std::array<Word, 8> state;
  for (unsigned i = 0; i < 8; ++i) state[i] = Constant(kSha256Iv[i]);
  state = Compress(block, state, e);
  // Block 2: padding of a 512-bit message, all constants.
  std::array<Word, 16> pad;
  for (unsigned i = 0; i < 16; ++i) pad[i] = Constant(0);
  pad[0] = Constant(0x80000000u);
  pad[15] = Constant(512);
  state = Compress(pad, state, e);
  // The digest as a little-endian number, top two bits dropped: the packed 254 bits.
  std::array<uint8_t, 32> digest;
  for (unsigned i = 0; i < 8; ++i) {
    for (unsigned j = 0; j < 4; ++j) digest[4 * i + j] = uint8_t(state[i].val >> (24 - 8 * j));
  }
  digest[31] &= 0x3f;
  Fr node = *Fr::FromBytes(digest, ff::Endian::kLittle);
  e.Value(node);
  return node;
}

}  // namespace cuzk::snapdeals::witness
