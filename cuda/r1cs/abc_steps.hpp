#pragma once
// The per-thread steps of witness-only proving on the GPU, written once for
// host and device (CUZK_HD): abc_kernels.cu wraps each in a kernel (one thread
// per index), abc_emulation.hpp runs them in host loops so the device
// algorithm is tested without a GPU.
//
//  ExpandWitnessStep (thread per variable v): z[v] from the compact witness
//    (engine/r1cs/compact_witness.hpp): 0, 1 (R in Montgomery form), or the
//    "other" value of rank chunk_others[v / 256] + the "other" classes before
//    v in its chunk (at most 16 class words, popcounts; they are read by the
//    256 threads of the chunk, so they come from L1).
//  EvaluateRowStep (thread per row of the domain, m rows): bellperson's
//    a/b/c exactly as r1cs::EvaluateAbcInto writes them: rows < constraints
//    are A z, B z, C z; the next num_inputs rows are the appended
//    "input_i * 0 = 0" rows (a = z_i, b = c = 0); the rest is zero padding.
//    Returns whether a b = c (one multiplication), so the kernel can keep the
//    smallest failing row (atomicMin) as r1cs::FirstUnsatisfied does.
// Field results are fully reduced on both sides, so equal values have equal
// bits, whatever order the terms are summed in.
#include <cstdint>

#include "cuda/ff/fr.hpp"
#include "cuda/ff/host_device.hpp"

#if !CUZK_DEVICE_PASS
#include <bit>
#endif

namespace cuzk::cuda::r1cs_steps {

// Codes of engine/r1cs/compact_circuit.hpp (spelled out: that header is host-only).
constexpr uint16_t kCodeOne = 0, kCodeMinusOne = 1, kCodeEscape = 0xffff;

// One compact matrix, wherever it lives (device memory, or host vectors in the emulation).
struct MatrixView {
  const uint32_t* row_offsets = nullptr;
  const uint32_t* columns = nullptr;
  const uint16_t* codes = nullptr;
  const uint32_t* escape_positions = nullptr;
  const Fr* escape_values = nullptr;
  uint32_t escapes = 0;
};

struct CircuitView {
  const Fr* coefficients = nullptr;
  MatrixView a, b, c;
  uint64_t num_constraints = 0;
  uint64_t num_inputs = 0;
};

struct WitnessView {
  const uint32_t* classes = nullptr;
  const uint32_t* chunk_others = nullptr;
  const Fr* others = nullptr;
  uint64_t num_variables = 0;
};

constexpr uint32_t kVariablesPerWord = 16, kWordsPerChunk = 16;
constexpr uint32_t kChunkVariables = kVariablesPerWord * kWordsPerChunk;
// Bit 1 of each 2-bit class (0 zero, 1 one, 2 other) marks "other".
constexpr uint32_t kOtherBits = 0xaaaaaaaau;

CUZK_HD int Popcount32(uint32_t x) {
#if CUZK_DEVICE_PASS
  return __popc(x);
#else
  return std::popcount(x);
#endif
}

CUZK_HD void ExpandWitnessStep(uint64_t v, const WitnessView& w, Fr* z) {
  const uint64_t word = v / kVariablesPerWord;
  const uint32_t shift = 2 * uint32_t(v % kVariablesPerWord);
  const uint32_t bits = w.classes[word];
  const uint32_t cls = (bits >> shift) & 3u;
  if (cls == 0) {
    z[v] = Fr::Zero();
  } else if (cls == 1) {
    z[v] = Fr::One();
  } else {
    uint64_t rank = w.chunk_others[v / kChunkVariables];
    for (uint64_t k = (v / kChunkVariables) * kWordsPerChunk; k < word; ++k)
      rank += Popcount32(w.classes[k] & kOtherBits);
    rank += Popcount32(bits & kOtherBits & ((1u << shift) - 1u));  // shift <= 30
    z[v] = w.others[rank];
  }
}

// The coefficient of an escaped nonzero k: binary search of the escape list
// (positions ascend; k is in it by construction).
CUZK_HD Fr EscapeValue(const MatrixView& m, uint32_t k) {
  uint32_t lo = 0, hi = m.escapes;  // the answer is in [lo, hi)
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (m.escape_positions[mid] <= k)
      lo = mid;
    else
      hi = mid;
  }
  return m.escape_values[lo];
}

// 32-byte field elements as two 16-byte accesses on the device (the Fr
// struct is eight 32-bit limbs, so a plain copy issues eight 4-byte
// accesses). Device arrays come from cudaMalloc: 32-byte elements are
// 16-byte aligned.
CUZK_HD Fr LoadFr(const Fr* p) {
#if CUZK_DEVICE_PASS
  Fr r;
  const uint4* src = reinterpret_cast<const uint4*>(p);
  uint4* dst = reinterpret_cast<uint4*>(&r);
  dst[0] = __ldg(src), dst[1] = __ldg(src + 1);
  return r;
#else
  return *p;
#endif
}
CUZK_HD void StoreFr(Fr* p, const Fr& v) {
#if CUZK_DEVICE_PASS
  const uint4* src = reinterpret_cast<const uint4*>(&v);
  uint4* dst = reinterpret_cast<uint4*>(p);
  dst[0] = src[0], dst[1] = src[1];
#else
  *p = v;
#endif
}

// The 2-bit class of variable v (0 zero, 1 one, 2 other).
CUZK_HD uint32_t ClassOf(const uint32_t* classes, uint32_t v) {
  return (classes[v / kVariablesPerWord] >> (2 * (v % kVariablesPerWord))) & 3u;
}

// sum_k coef_k z[col_k] over the row. Skips zero witness values (about half
// of SnapDeals' z), adds or subtracts z for the +-1 codes and takes the
// coefficient itself for z = 1, so a multiplication is paid only for
// coefficient and value both other than 0/+-1. With `classes` (the compact
// witness z was expanded from: 2 bits a variable, 20 MB at 32 GiB, so it
// stays in L2), a 0 or 1 is known from its class and only the ~1% "other"
// values are read from z: 32-byte gathers from the 2.6 GB z were most of
// the kernel's time. Without, every value is read from z.
CUZK_HD Fr RowDot(const MatrixView& m, const Fr* table, uint64_t row, const Fr* z, const uint32_t* classes) {
  Fr acc = Fr::Zero();
  const uint32_t end = m.row_offsets[row + 1];
  for (uint32_t k = m.row_offsets[row]; k < end; ++k) {
    const uint32_t col = m.columns[k];
    bool one = false;
    Fr x = Fr::Zero();
    if (classes != nullptr) {
      const uint32_t cls = ClassOf(classes, col);
      if (cls == 0) continue;
      one = cls == 1;
      if (!one) x = LoadFr(z + col);
    } else {
      x = LoadFr(z + col);
      if (x.IsZero()) continue;
      one = x == Fr::One();
    }
    const uint16_t code = m.codes[k];
    if (code == kCodeOne) {
      acc += one ? Fr::One() : x;
    } else if (code == kCodeMinusOne) {
      acc -= one ? Fr::One() : x;
    } else {
      const Fr coef = code == kCodeEscape ? EscapeValue(m, k) : LoadFr(table + code);
      acc += one ? coef : coef * x;
    }
  }
  return acc;
}

// Row `row` of the m-row domain into a, b, c; false when it is a constraint
// with a b != c. `classes`: as RowDot's (nullptr: read every value from z).
CUZK_HD bool EvaluateRowStep(uint64_t row, const CircuitView& cv, const Fr* z, const uint32_t* classes, Fr* a, Fr* b,
                             Fr* c) {
  if (row < cv.num_constraints) {
    const Fr ra = RowDot(cv.a, cv.coefficients, row, z, classes);
    const Fr rb = RowDot(cv.b, cv.coefficients, row, z, classes);
    const Fr rc = RowDot(cv.c, cv.coefficients, row, z, classes);
    StoreFr(a + row, ra), StoreFr(b + row, rb), StoreFr(c + row, rc);
    return ra * rb == rc;
  }
  const uint64_t input = row - cv.num_constraints;
  StoreFr(a + row, input < cv.num_inputs ? LoadFr(z + input) : Fr::Zero());
  StoreFr(b + row, Fr::Zero()), StoreFr(c + row, Fr::Zero());
  return true;
}

}  // namespace cuzk::cuda::r1cs_steps
