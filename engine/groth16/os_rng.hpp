#pragma once
// OsRng: the operating system's CSPRNG (getrandom(2), blocking until the pool
// is initialized) as a uniform random bit generator of 64-bit words, for the
// prover's r, s, the setup's toxic waste and the verifier's batch weights.
// Fills an internal buffer 32 words at a time (one syscall per 256 bytes).
// Throws std::system_error if the kernel refuses.
//
//   groth16::OsRng rng;
//   ff::Fr r = ff::Fr::Random(rng);
#include <array>
#include <cstddef>
#include <cstdint>

namespace cuzk::groth16 {

class OsRng {
 public:
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return UINT64_MAX; }

  OsRng() = default;
  OsRng(const OsRng&) = delete;
  OsRng& operator=(const OsRng&) = delete;
  ~OsRng();  // wipes the unused buffered words

  uint64_t operator()() {
    if (next_ == buffer_.size()) Refill();
    return buffer_[next_++];
  }

 private:
  void Refill();
  std::array<uint64_t, 32> buffer_{};
  size_t next_ = buffer_.size();
};

// Overwrites memory in a way the compiler may not elide (for toxic waste).
void SecureWipe(void* p, size_t n);

}  // namespace cuzk::groth16
