#include "engine/r1cs/evaluate.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <tuple>

#include "engine/util/parallel.hpp"

namespace cuzk::r1cs {

using ff::Fr;

namespace {

inline Fr Dot(const CsrMatrix& m, size_t row, const Fr* z) {
  Fr acc;
  const uint64_t end = m.row_offsets[row + 1];
  for (uint64_t k = m.row_offsets[row]; k < end; ++k) acc += m.values[k] * z[m.columns[k]];
  return acc;
}

// Rows per chunk small enough to balance uneven row lengths.
unsigned Chunks(size_t rows, unsigned threads) {
  unsigned t = util::ResolveThreads(threads);
  return rows < 4096 ? 1 : t;
}

}  // namespace

void EvaluateAbcInto(const CompiledCircuit& circuit, std::span<const Fr> z, AbcSpans& out,
                     const EvaluateOptions& options) {
  if (z.size() != circuit.num_variables()) {
    throw std::invalid_argument("EvaluateAbc: assignment has " + std::to_string(z.size()) +
                                " values, the circuit has " + std::to_string(circuit.num_variables()) + " variables");
  }
  const uint64_t nc = circuit.num_constraints();
  const uint64_t rows = circuit.num_prover_rows();
  const uint64_t len = out.a.size();
  if (out.b.size() != len || out.c.size() != len || len < rows) {
    throw std::invalid_argument("EvaluateAbcInto: a/b/c spans of " + std::to_string(out.a.size()) + "/" +
                                std::to_string(out.b.size()) + "/" + std::to_string(out.c.size()) + " elements for " +
                                std::to_string(rows) + " rows");
  }
  out.rows = rows;
  const Fr* zp = z.data();
  util::ParallelForChunks(nc, Chunks(nc, options.threads), [&](size_t begin, size_t end, size_t) {
    for (size_t r = begin; r < end; ++r) {
      out.a[r] = Dot(circuit.a, r, zp);
      out.b[r] = Dot(circuit.b, r, zp);
      out.c[r] = Dot(circuit.c, r, zp);
    }
  });
  // bellperson's appended input rows: a = z_i, b = c = 0.
  for (uint64_t i = 0; i < circuit.num_inputs; ++i) out.a[nc + i] = z[i], out.b[nc + i] = out.c[nc + i] = Fr::Zero();
  // The padding, in parallel (8 MiB partition: 3 x 214 MB; a single-thread
  // fill would add ~0.1 s to every synthesis).
  const size_t pad = len - rows;
  util::ParallelForChunks(pad, Chunks(pad, options.threads), [&](size_t begin, size_t end, size_t) {
    for (auto* side : {&out.a, &out.b, &out.c})
      std::fill(side->begin() + rows + begin, side->begin() + rows + end, Fr::Zero());
  });
}

AbcVectors EvaluateAbc(const CompiledCircuit& circuit, std::span<const Fr> z, const EvaluateOptions& options) {
  const uint64_t len = std::max<uint64_t>(circuit.num_prover_rows(), options.pad_to);
  AbcVectors out;
  if (z.size() == circuit.num_variables()) {  // otherwise EvaluateAbcInto throws before anything is allocated
    out.a.resize(len);
    out.b.resize(len);
    out.c.resize(len);
  }
  AbcSpans spans{out.a, out.b, out.c};
  EvaluateAbcInto(circuit, z, spans, options);
  out.rows = spans.rows;
  return out;
}

namespace {

template <class RowSides>
std::optional<ConstraintFailure> FindFirst(const CompiledCircuit& circuit, uint64_t rows, unsigned threads,
                                           RowSides&& sides) {
  std::atomic<uint64_t> first{UINT64_MAX};
  util::ParallelForChunks(rows, Chunks(rows, threads), [&](size_t begin, size_t end, size_t) {
    for (size_t r = begin; r < end && r < first.load(std::memory_order_relaxed); ++r) {
      auto [a, b, c] = sides(r);
      if (a * b != c) {
        uint64_t cur = first.load();
        while (r < cur && !first.compare_exchange_weak(cur, r)) {
        }
        return;
      }
    }
  });
  uint64_t r = first.load();
  if (r == UINT64_MAX) return std::nullopt;
  auto [a, b, c] = sides(r);
  return ConstraintFailure{r, circuit.RowName(r), a, b, c};
}

// The first failing row of evaluated sides, wherever they live (vectors or caller memory).
std::optional<ConstraintFailure> FirstUnsatisfiedSides(const CompiledCircuit& circuit, std::span<const Fr> a,
                                                       std::span<const Fr> b, std::span<const Fr> c, unsigned threads) {
  const uint64_t rows = circuit.num_prover_rows();
  if (a.size() < rows || b.size() < rows || c.size() < rows) {
    throw std::invalid_argument("FirstUnsatisfied: a/b/c shorter than the circuit's rows");
  }
  return FindFirst(circuit, rows, threads, [&](size_t r) { return std::tuple{a[r], b[r], c[r]}; });
}

}  // namespace

std::optional<ConstraintFailure> FirstUnsatisfied(const CompiledCircuit& circuit, const AbcVectors& abc,
                                                  unsigned threads) {
  return FirstUnsatisfiedSides(circuit, abc.a, abc.b, abc.c, threads);
}

std::optional<ConstraintFailure> FirstUnsatisfied(const CompiledCircuit& circuit, const AbcSpans& abc,
                                                  unsigned threads) {
  return FirstUnsatisfiedSides(circuit, abc.a, abc.b, abc.c, threads);
}

std::optional<ConstraintFailure> FirstUnsatisfied(const CompiledCircuit& circuit, std::span<const Fr> z,
                                                  unsigned threads) {
  if (z.size() != circuit.num_variables()) {
    throw std::invalid_argument("FirstUnsatisfied: assignment has " + std::to_string(z.size()) +
                                " values, the circuit has " + std::to_string(circuit.num_variables()) + " variables");
  }
  // The appended input rows (z_i * 0 = 0) always hold.
  return FindFirst(circuit, circuit.num_constraints(), threads, [&](size_t r) {
    return std::tuple{Dot(circuit.a, r, z.data()), Dot(circuit.b, r, z.data()), Dot(circuit.c, r, z.data())};
  });
}

bool IsSatisfied(const CompiledCircuit& circuit, std::span<const Fr> z, ConstraintFailure* failure, unsigned threads) {
  auto f = FirstUnsatisfied(circuit, z, threads);
  if (f && failure) *failure = *f;
  return !f;
}

}  // namespace cuzk::r1cs
