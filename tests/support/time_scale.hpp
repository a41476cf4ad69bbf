#pragma once
// How much slower than a normal build the tests run: CUZK_TEST_TIME_SCALE, a
// positive number (default 1). scripts/sanitize.sh sets it (TSan 6, ASan 2),
// where a 2 KiB parameter load takes 122-146 s instead of about 1 s.
//
//   ASSERT_TRUE(rec.WaitFinished("good", test::Scaled(300s)));
//
// Only waits that include a parameter load or a proof are scaled: they bound a
// hang, and a sanitizer's cost is no hang. A wait that asserts something is fast,
// or that bounds a misbehaviour (a slow client dropped, RSS growth, an answer
// within X), is not: scaling it would let the fault it catches through.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace cuzk::test {

// CUZK_TEST_TIME_SCALE, read once; std::invalid_argument (naming the variable
// and its value) when it is not a positive finite number.
inline double TimeScale() {
  static const double scale = [] {
    const char* v = std::getenv("CUZK_TEST_TIME_SCALE");
    if (v == nullptr || *v == '\0') return 1.0;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end == v || *end != '\0' || !std::isfinite(s) || s <= 0) {
      throw std::invalid_argument("CUZK_TEST_TIME_SCALE must be a positive number, not \"" + std::string(v) + "\"");
    }
    return s;
  }();
  return scale;
}

// `timeout` times TimeScale(), rounded up to whole seconds.
inline std::chrono::seconds Scaled(std::chrono::seconds timeout) {
  return std::chrono::seconds(static_cast<std::chrono::seconds::rep>(std::ceil(double(timeout.count()) * TimeScale())));
}

}  // namespace cuzk::test
