#include "engine/groth16/os_rng.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace cuzk::groth16 {

void OsRng::Refill() {
  auto* p = reinterpret_cast<uint8_t*>(buffer_.data());
  size_t want = sizeof(buffer_), got = 0;
  while (got < want) {
    ssize_t n = ::getrandom(p + got, want - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    got += size_t(n);
  }
  next_ = 0;
}

OsRng::~OsRng() { SecureWipe(buffer_.data(), sizeof(buffer_)); }

void SecureWipe(void* p, size_t n) {
  volatile uint8_t* v = static_cast<volatile uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) v[i] = 0;
  asm volatile("" ::: "memory");
}

}  // namespace cuzk::groth16
