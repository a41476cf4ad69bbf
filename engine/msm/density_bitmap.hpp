#pragma once
// DensityBitmap: which of n variables take part in a sum. Groth16's A and B
// parameter sections store a base only for variables that appear in some A
// (resp. B) row; the MSM walks all n scalars and consumes the next base only
// where the bit is set (bellperson's DensityTracker).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cuzk::msm {

class DensityBitmap {
 public:
  DensityBitmap() = default;
  explicit DensityBitmap(size_t n, bool value = false) : words_((n + 63) / 64, value ? ~uint64_t(0) : 0), size_(n) {
    if (value && n % 64) words_.back() = (uint64_t(1) << (n % 64)) - 1;
  }

  // A bitmap of n bits from its 64-bit words (bit i of the bitmap is bit
  // i % 64 of words[i / 64]), as words() gives them: one move instead of n
  // Set calls (81 M at 32 GiB). std::invalid_argument unless words holds
  // ceil(n / 64) words; bits past n in the last word are cleared.
  static DensityBitmap FromWords(std::vector<uint64_t> words, size_t n) {
    if (words.size() != (n + 63) / 64)
      throw std::invalid_argument("DensityBitmap::FromWords: word count does not match");
    if (n % 64) words.back() &= (uint64_t(1) << (n % 64)) - 1;
    DensityBitmap d;
    d.words_ = std::move(words);
    d.size_ = n;
    return d;
  }

  size_t size() const { return size_; }
  bool Test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void Set(size_t i, bool v = true) {
    uint64_t m = uint64_t(1) << (i % 64);
    words_[i / 64] = v ? (words_[i / 64] | m) : (words_[i / 64] & ~m);
  }
  void PushBack(bool v) {
    if (size_ % 64 == 0) words_.push_back(0);
    ++size_;
    Set(size_ - 1, v);
  }
  // Number of set bits (= number of bases the section holds).
  size_t Count() const {
    size_t c = 0;
    for (uint64_t w : words_) c += size_t(std::popcount(w));
    return c;
  }
  // Number of set bits strictly before i (index of i's base when Test(i)).
  size_t Rank(size_t i) const {
    size_t c = 0;
    for (size_t w = 0; w < i / 64; ++w) c += size_t(std::popcount(words_[w]));
    if (i % 64) c += size_t(std::popcount(words_[i / 64] & ((uint64_t(1) << (i % 64)) - 1)));
    return c;
  }
  const std::vector<uint64_t>& words() const { return words_; }
  bool operator==(const DensityBitmap&) const = default;

 private:
  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

}  // namespace cuzk::msm
