// cuda::ProofWorkingSetBytes decides how much device memory CudaBackend
// leaves for a key's bases (cuda_backend.hpp). These checks pin the two
// things that matter: it covers at least the buffers a proof certainly
// allocates, and a 32 GiB SnapDeals key still fits beside it on an H200
// (139.8 GiB), so the production shape never falls back to streaming there.
// Also the room a shifted H table may take (ShiftedTableRoom). Host-only:
// runs in CI.
#include <gtest/gtest.h>

#include <cstddef>

#include "cuda/groth16/cuda_backend.hpp"

namespace cuzk::cuda {
namespace {

constexpr size_t kFr = 32;

TEST(ProofWorkingSetTest, CoversTheProofsOwnBuffers) {
  for (unsigned log_m : {10u, 17u, 24u, 26u, 27u}) {
    const size_t m = size_t(1) << log_m, n_z = m - m / 4;
    const size_t ws = ProofWorkingSetBytes(m, n_z);
    // a, b, c and z on the device, plus the H MSM's canonical scalars.
    EXPECT_GE(ws, (4 * m + n_z) * kFr) << "2^" << log_m;
  }
  EXPECT_LT(ProofWorkingSetBytes(size_t(1) << 24, 10'000'000), ProofWorkingSetBytes(size_t(1) << 27, 81'000'000));
}

TEST(ProofWorkingSetTest, ThirtyTwoGiBKeyStaysResidentOnAnH200) {
  // 32 GiB partition: domain 2^27, 80,978,493 variables (cuzk-bench witness-stats).
  const size_t m = size_t(1) << 27, n_z = 80'978'493;
  // Upper bound of the key's device bases: H (m - 1 points) and L, A, B_g1
  // (each at most one point per variable) at 96 B, B_g2 at 192 B.
  const size_t bases = (m + 3 * n_z) * 96 + n_z * 192;
  const size_t h200 = size_t(139.8 * 1024 * 1024 * 1024);
  EXPECT_LT(ProofWorkingSetBytes(m, n_z) + bases, h200);
  // With two lanes (the daemon's two GPU workers per device) and the compact
  // circuit (3.63 GB measured at 32 GiB: docs/perf/gpu.md, GPU_PREPARE).
  const size_t circuit = size_t(3.7e9);
  EXPECT_LT(ProofWorkingSetBytes(m, n_z, 2) + bases + circuit, h200);
}

TEST(ProofWorkingSetTest, EachLaneAddsItsOwnBuffers) {
  const size_t m = size_t(1) << 27, n_z = 80'978'493;
  // A lane: a, b, c and z, and one NTT's scratch.
  EXPECT_EQ(ProofWorkingSetBytes(m, n_z, 2) - ProofWorkingSetBytes(m, n_z, 1), (4 * m + n_z) * kFr);
  EXPECT_EQ(ProofWorkingSetBytes(m, n_z, 0), ProofWorkingSetBytes(m, n_z, 1));
}

// The room a shifted H table may take (ShiftedTableRoom): free memory less
// what proofs may still allocate (the largest resident key's working set
// beyond the lanes' buffers already made), the build's slices and a margin;
// never more than a resident_bases_bytes cap leaves beside the key's bases.
TEST(ShiftedTableRoomTest, LeavesTheProofsTheirMemory) {
  constexpr size_t kGiB = size_t(1) << 30;
  const size_t h200 = size_t(139.8 * kGiB);
  // An 8 MiB key alone on an H200 after Prepare (lanes made, bases and circuit
  // resident): the 19.3 GB table at c = 22 fits.
  const size_t m8 = size_t(1) << 24, z8 = 10'007'503;
  const size_t lanes8 = 2 * (3 * m8 + z8) * kFr;
  ShiftedRoomInputs eight{.free_bytes = h200 - lanes8 - 6 * kGiB,
                          .total_bytes = h200,
                          .largest_working_set = ProofWorkingSetBytes(m8, z8, 2),
                          .lanes_made = lanes8,
                          .build_bytes = (size_t(1) << 22) * 192};
  const size_t room8 = ShiftedTableRoom(eight);
  EXPECT_GT(room8, size_t(12) * m8 * 96) << "the 8 MiB table fits";
  EXPECT_LT(room8 + ProofWorkingSetBytes(m8, z8, 2) - lanes8 + (size_t(1) << 22) * 192, eight.free_bytes);
  // A 32 GiB key resident too (its proofs' scratch not yet grown): its
  // working set counts, and the table no longer fits.
  const size_t m27 = size_t(1) << 27, z27 = 80'978'493;
  ShiftedRoomInputs both = eight;
  both.largest_working_set = ProofWorkingSetBytes(m27, z27, 2);
  both.free_bytes = h200 - lanes8 - 6 * kGiB - size_t(38) * 1'000'000'000;  // its bases and circuit
  EXPECT_LT(ShiftedTableRoom(both), size_t(12) * m8 * 96);
  // Nothing free: no room, no underflow.
  ShiftedRoomInputs none = eight;
  none.free_bytes = kGiB;
  EXPECT_EQ(ShiftedTableRoom(none), 0u);
  // A cap: what it leaves beside the key's bases, at most.
  ShiftedRoomInputs capped = eight;
  capped.cap = 10 * kGiB;
  capped.key_held = 4 * kGiB;
  EXPECT_EQ(ShiftedTableRoom(capped), 6 * kGiB);
  capped.key_held = 11 * kGiB;
  EXPECT_EQ(ShiftedTableRoom(capped), 0u);
  // The margin: 1/32 of the device, at least 2 GiB.
  ShiftedRoomInputs bare{.free_bytes = 100 * kGiB, .total_bytes = 128 * kGiB};
  EXPECT_EQ(ShiftedTableRoom(bare), 96 * kGiB);
  bare.total_bytes = 16 * kGiB;
  EXPECT_EQ(ShiftedTableRoom(bare), 98 * kGiB);
}

}  // namespace
}  // namespace cuzk::cuda
