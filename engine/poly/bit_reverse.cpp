// In-place bit-reversal permutation.
//
// A plain swap loop touches two unrelated cache lines per element once n
// exceeds the caches (and at 2^27, two pages). Instead the index is split as
// i = (hi, mid, lo) with hi and lo kTileBits wide: rev(i) = (rev lo, rev mid,
// rev hi), so the 2^kTileBits x 2^kTileBits tile with middle bits `mid` (rows
// = hi, contiguous columns = lo, 512 bytes per row) maps onto the tile
// rev(mid), transposed and with both coordinates reversed. Each pair of tiles
// is swapped through two 8 KiB buffers, so every cache line read is used
// whole. Tile pairs are independent: threads take grains of middle bits.
#include "engine/poly/ntt.hpp"
#include "engine/poly/ntt_internal.hpp"

namespace cuzk::poly {
namespace internal {
namespace {

constexpr unsigned kTileBits = 4;
constexpr size_t kTile = size_t(1) << kTileBits;
// Below this the whole array sits in L2 and the plain loop is as fast.
constexpr unsigned kMinTiledLog = 2 * kTileBits + 4;
// Below this one thread finishes before a second one would have started.
constexpr unsigned kMinParallelLog = 16;
// Tiles (of 256 elements) handed to a thread at a time.
constexpr size_t kTilesPerGrain = 16;

void BitReverseSmall(Fr* a, unsigned log_n) {
  const size_t n = size_t(1) << log_n;
  for (size_t i = 0; i < n; ++i) {
    size_t j = ReverseBits(uint32_t(i), log_n);
    if (i < j) std::swap(a[i], a[j]);
  }
}

void BitReverseTiled(Fr* a, unsigned log_n, unsigned threads) {
  const unsigned mid_bits = log_n - 2 * kTileBits;
  const size_t tiles = size_t(1) << mid_bits;
  const size_t row_stride = size_t(1) << (log_n - kTileBits);
  uint8_t rev_tile[kTile];
  for (size_t i = 0; i < kTile; ++i) rev_tile[i] = uint8_t(ReverseBits(uint32_t(i), kTileBits));

  ParallelGrains(tiles, kTilesPerGrain, threads, [&](GrainCounter& grains) {
    Fr first[kTile * kTile], second[kTile * kTile];
    auto load = [&](Fr* buf, size_t base) {
      for (size_t hi = 0; hi < kTile; ++hi) {
        const Fr* src = a + hi * row_stride + base;
        for (size_t lo = 0; lo < kTile; ++lo) buf[hi * kTile + lo] = src[lo];
      }
    };
    // Element (hi, lo) of the source tile lands at (rev lo, rev hi) of the target.
    auto store = [&](const Fr* buf, size_t base) {
      for (size_t lo = 0; lo < kTile; ++lo) {
        Fr* dst = a + rev_tile[lo] * row_stride + base;
        for (size_t hi = 0; hi < kTile; ++hi) dst[rev_tile[hi]] = buf[hi * kTile + lo];
      }
    };
    auto swap_pair = [&](size_t mid) {
      const size_t rev_mid = ReverseBits(uint32_t(mid), mid_bits);
      if (rev_mid < mid) return;  // the partner tile's grain does the pair
      const size_t base = mid << kTileBits, rev_base = rev_mid << kTileBits;
      load(first, base);
      if (rev_mid == mid) {
        store(first, base);
        return;
      }
      load(second, rev_base);
      store(first, rev_base);
      store(second, base);
    };
    for (size_t begin, end; grains.Next(begin, end);) {
      for (size_t mid = begin; mid < end; ++mid) swap_pair(mid);
    }
  });
}

}  // namespace

void BitReverseInPlace(Fr* a, unsigned log_n, unsigned threads) {
  if (log_n < kMinTiledLog) {
    BitReverseSmall(a, log_n);
    return;
  }
  BitReverseTiled(a, log_n, log_n >= kMinParallelLog ? threads : 1);
}

}  // namespace internal

void BitReverse(std::span<ff::Fr> a, const NttOptions& options) {
  unsigned log_n = internal::CheckSize(a.size(), "BitReverse");
  internal::BitReverseInPlace(a.data(), log_n, options.threads);
}

}  // namespace cuzk::poly
