#pragma once
// Element-wise field operations on the GPU for host vectors: the device side
// of the field tests (field_gpu_test) and of `cuzk-gpu-bench field`. Not a
// production path (each call copies in and out and waits).
#include <cstdint>
#include <span>

#include "engine/ff/fp.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::cuda {

// kMulSeparateChains: the alternative multiplication formulation (mont_field32.hpp);
// kMulDfma: products on the FP64 pipe (mul_dfma.hpp).
// kInverse: Fermat (MontField32::Inverse); kInverseVar: safegcd (inverse_by.hpp). Both map 0 to 0.
// kMulSub: a b - (a + b) b with one reduction (MontField32::MulSub).
enum class FieldOp { kMul, kAdd, kSub, kNeg, kSquare, kMulSeparateChains, kInverse, kInverseVar, kMulDfma, kMulSub };

// The multiplication formulations the throughput benchmark can time.
// kSquare: x <- x^2 (Square(): on Fp each cross product once);
// kMulSub: x <- x y - y y (MontField32::MulSub: on Fp two products, one
// reduction), counted as two multiplications.
enum class MulKind { kEvenOdd, kSeparateChains, kDfma, kSquare, kMulSub };

// out[i] = a[i] op b[i] (b unused by kNeg / kSquare); all spans the same length.
void ElementwiseOnDevice(FieldOp op, std::span<const ff::Fr> a, std::span<const ff::Fr> b, std::span<ff::Fr> out);
void ElementwiseOnDevice(FieldOp op, std::span<const ff::Fp> a, std::span<const ff::Fp> b, std::span<ff::Fp> out);

// Multiplication throughput: `threads` threads each run `chains` independent
// chains of `rounds` dependent multiplications (x <- x * y). Returns the kernel
// time in ms (median of `repeats` after one warm-up) and the mults per second.
struct MulThroughput {
  double ms = 0;
  double mults_per_second = 0;
};
MulThroughput MeasureFrMulThroughput(uint32_t blocks, uint32_t threads_per_block, uint32_t rounds, int repeats,
                                     MulKind kind = MulKind::kEvenOdd);
MulThroughput MeasureFpMulThroughput(uint32_t blocks, uint32_t threads_per_block, uint32_t rounds, int repeats,
                                     MulKind kind = MulKind::kEvenOdd);

// The FP64 pipe's FMA rate, the ceiling MulDfma's products run against:
// each thread runs 8 independent chains of `rounds` dependent DFMAs.
// mults_per_second counts DFMAs.
MulThroughput MeasureDfmaThroughput(uint32_t blocks, uint32_t threads_per_block, uint32_t rounds, int repeats);

// Fp inversion throughput: each thread runs `rounds` dependent safegcd
// inversions (x <- 1 / x + y). Returns the kernel time and inversions per second.
MulThroughput MeasureFpInverseThroughput(uint32_t blocks, uint32_t threads_per_block, uint32_t rounds, int repeats);

}  // namespace cuzk::cuda
