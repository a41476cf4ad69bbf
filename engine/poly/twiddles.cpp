// Process-wide cache of the radix-2 twiddle levels used by every sub-transform
// (see TwiddleLevels in ntt_internal.hpp). A level depends only on its span,
// not on the transform size, so one table per direction serves all sizes:
// level s holds w_(2^(s+1))^j for j < 2^s, built once on first use.
#include <memory>
#include <mutex>

#include "engine/poly/ntt_internal.hpp"

namespace cuzk::poly::internal {
namespace {

struct LevelCache {
  std::once_flag once[kMaxSubLog];
  std::unique_ptr<Fr[]> table[kMaxSubLog];
};

LevelCache& Cache(Direction direction) {
  static LevelCache forward, inverse;
  return direction == Direction::kForward ? forward : inverse;
}

std::unique_ptr<Fr[]> BuildLevel(unsigned s, Direction direction) {
  const size_t half = size_t(1) << s;
  Fr w = ff::FrRootOfUnity(s + 1);
  if (direction == Direction::kInverse) w = w.Inverse();
  auto table = std::make_unique<Fr[]>(half);
  Fr x = Fr::One();
  for (size_t j = 0; j < half; ++j) {
    table[j] = x;
    x *= w;
  }
  return table;
}

}  // namespace

TwiddleLevels GetTwiddles(unsigned log_len, Direction direction) {
  LevelCache& cache = Cache(direction);
  TwiddleLevels levels;
  for (unsigned s = 0; s < log_len && s < kMaxSubLog; ++s) {
    std::call_once(cache.once[s], [&] { cache.table[s] = BuildLevel(s, direction); });
    levels.level[s] = cache.table[s].get();
  }
  return levels;
}

}  // namespace cuzk::poly::internal
