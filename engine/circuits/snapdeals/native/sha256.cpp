#include "engine/circuits/snapdeals/native/sha256.hpp"

#include <algorithm>
#include <cstring>

#include "engine/circuits/snapdeals/native/sha256_constants.hpp"

namespace cuzk::snapdeals {
namespace {

constexpr uint32_t Rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }
constexpr uint32_t SmallSigma0(uint32_t x) { return Rotr(x, 7) ^ Rotr(x, 18) ^ (x >> 3); }
constexpr uint32_t SmallSigma1(uint32_t x) { return Rotr(x, 17) ^ Rotr(x, 19) ^ (x >> 10); }

constexpr void ExpandSchedule(std::array<uint32_t, 64>& w) {
  for (int i = 16; i < 64; ++i) w[i] = SmallSigma1(w[i - 2]) + w[i - 7] + SmallSigma0(w[i - 15]) + w[i - 16];
}

// The 64 rounds on a fully expanded schedule.
inline void Rounds(std::array<uint32_t, 8>& state, const std::array<uint32_t, 64>& w) {
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t s1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + s1 + ch + kSha256RoundConstants[i] + w[i];
    uint32_t s0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

inline uint32_t LoadBe32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// Schedule of the padding block of any 64-byte message: 0x80, zeros, bit length 512.
constexpr std::array<uint32_t, 64> kPad64Schedule = [] {
  std::array<uint32_t, 64> w{};
  w[0] = 0x80000000u;
  w[15] = 512;
  ExpandSchedule(w);
  return w;
}();

}  // namespace

void Sha256::Compress(std::array<uint32_t, 8>& state, const uint8_t* block) {
  std::array<uint32_t, 64> w;
  for (int i = 0; i < 16; ++i) w[i] = LoadBe32(block + 4 * i);
  ExpandSchedule(w);
  Rounds(state, w);
}

Sha256::Sha256() : state_(kSha256Iv) {}

void Sha256::Update(std::span<const uint8_t> data) {
  total_bytes_ += data.size();
  size_t i = 0;
  if (buffered_) {
    size_t take = std::min(data.size(), 64 - buffered_);
    std::memcpy(buffer_.data() + buffered_, data.data(), take);
    buffered_ += take;
    i = take;
    if (buffered_ < 64) return;
    Compress(state_, buffer_.data());
    buffered_ = 0;
  }
  for (; i + 64 <= data.size(); i += 64) Compress(state_, data.data() + i);
  if (i < data.size()) {
    std::memcpy(buffer_.data(), data.data() + i, data.size() - i);
    buffered_ = data.size() - i;
  }
}

Sha256Digest Sha256::Final() {
  uint64_t bits = total_bytes_ * 8;
  buffer_[buffered_++] = 0x80;
  if (buffered_ > 56) {
    std::memset(buffer_.data() + buffered_, 0, 64 - buffered_);
    Compress(state_, buffer_.data());
    buffered_ = 0;
  }
  std::memset(buffer_.data() + buffered_, 0, 56 - buffered_);
  for (int i = 0; i < 8; ++i) buffer_[56 + i] = uint8_t(bits >> (56 - 8 * i));
  Compress(state_, buffer_.data());
  Sha256Digest out;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = uint8_t(state_[i] >> (24 - 8 * j));
  }
  return out;
}

Sha256Digest Sha256Hash(std::span<const uint8_t> data) {
  Sha256 h;
  h.Update(data);
  return h.Final();
}

filecoin::Domain TreeDHash(const filecoin::Domain& left, const filecoin::Domain& right) {
  std::array<uint32_t, 64> w;
  for (int i = 0; i < 8; ++i) w[i] = LoadBe32(left.data() + 4 * i);
  for (int i = 0; i < 8; ++i) w[8 + i] = LoadBe32(right.data() + 4 * i);
  ExpandSchedule(w);
  std::array<uint32_t, 8> state = kSha256Iv;
  Rounds(state, w);
  Rounds(state, kPad64Schedule);
  filecoin::Domain out;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = uint8_t(state[i] >> (24 - 8 * j));
  }
  out[31] &= 0x3f;
  return out;
}

}  // namespace cuzk::snapdeals
