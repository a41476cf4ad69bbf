#pragma once
// Reproducible randomness for tests: every randomized test takes its seed from
// TestSeed(), which prints it ("seed=N") so a failure can be replayed with
// CUZK_TEST_SEED=N.
#include <cstdint>
#include <random>

namespace cuzk::test {

// CUZK_TEST_SEED if set, else a fresh random seed; printed once per call.
uint64_t TestSeed();

inline std::mt19937_64 SeededRng() { return std::mt19937_64(TestSeed()); }

}  // namespace cuzk::test
