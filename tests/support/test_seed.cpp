#include "tests/support/test_seed.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cuzk::test {

uint64_t TestSeed() {
  uint64_t seed;
  if (const char* env = std::getenv("CUZK_TEST_SEED")) {
    seed = std::strtoull(env, nullptr, 10);
  } else {
    seed = std::random_device{}();
    seed = (seed << 32) ^ std::random_device{}();
  }
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::printf("[ seed     ] %s.%s seed=%llu (replay with CUZK_TEST_SEED=%llu)\n", info ? info->test_suite_name() : "",
              info ? info->name() : "", (unsigned long long)seed, (unsigned long long)seed);
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

}  // namespace cuzk::test
