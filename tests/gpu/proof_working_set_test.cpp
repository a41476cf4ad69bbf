// cuda::ProofWorkingSetBytes decides how much device memory CudaBackend
// leaves for a key's bases (cuda_backend.hpp). These checks pin the two
// things that matter: it covers at least the buffers a proof certainly
// allocates, and a 32 GiB SnapDeals key still fits beside it on an H200
// (139.8 GiB), so the production shape never falls back to streaming there.
// Host-only: runs in CI.
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

}  // namespace
}  // namespace cuzk::cuda
