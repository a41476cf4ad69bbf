#pragma once
// Evaluating a compiled circuit on an assignment: the a, b, c vectors of the
// Groth16 prover (A·z, B·z, C·z per row, then one row per input with
// a = z_i, b = c = 0: bellperson's appended "input_i * 0 = 0" rows), and
// satisfaction checks that name the first failing row.
//
//   r1cs::AbcVectors abc = r1cs::EvaluateAbc(compiled, z.values, {.pad_to = m});
//   if (auto f = r1cs::FirstUnsatisfied(compiled, abc)) throw ... f->name ...;
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {

struct ConstraintFailure {
  uint64_t index = 0;  // row number (constraints in synthesis order, then input rows)
  std::string name;    // full namespaced name, or "constraint #i" when names were not recorded
  ff::Fr a, b, c;      // the evaluated sides: a * b != c
};

struct AbcVectors {
  std::vector<ff::Fr> a, b, c;  // each max(pad_to, num_prover_rows) long, zero-padded
  uint64_t rows = 0;            // num_prover_rows (rows that carry values)
};

// a/b/c in caller memory (a page-locked buffer the GPU copies from at line
// rate instead of ~8 GB/s from pageable vectors): three spans of one length,
// at least num_prover_rows.
struct AbcSpans {
  std::span<ff::Fr> a, b, c;
  uint64_t rows = 0;  // num_prover_rows, set by EvaluateAbcInto
};

struct EvaluateOptions {
  uint64_t pad_to = 0;   // final length at least this (the FFT domain size m)
  unsigned threads = 0;  // 0 = all hardware threads
};

// z.size() must equal circuit.num_variables() (std::invalid_argument otherwise).
// Multi-threaded over rows; each output element is written by one thread.
AbcVectors EvaluateAbc(const CompiledCircuit& circuit, std::span<const ff::Fr> z, const EvaluateOptions& options = {});

// The same into caller memory: every element of the three spans is written
// (rows, then zero padding), so the memory need not be cleared first; sets
// out.rows. options.pad_to is ignored (the spans' length is the padding).
// std::invalid_argument when z or the spans have the wrong length.
void EvaluateAbcInto(const CompiledCircuit& circuit, std::span<const ff::Fr> z, AbcSpans& out,
                     const EvaluateOptions& options = {});

// The first row (smallest index) with a * b != c, or nullopt. Multi-threaded.
std::optional<ConstraintFailure> FirstUnsatisfied(const CompiledCircuit& circuit, const AbcVectors& abc,
                                                  unsigned threads = 0);
std::optional<ConstraintFailure> FirstUnsatisfied(const CompiledCircuit& circuit, const AbcSpans& abc,
                                                  unsigned threads = 0);
// Same, evaluating the rows from the assignment.
std::optional<ConstraintFailure> FirstUnsatisfied(const CompiledCircuit& circuit, std::span<const ff::Fr> z,
                                                  unsigned threads = 0);

// true when every row holds; otherwise fills *failure (if given) with the first failing row.
bool IsSatisfied(const CompiledCircuit& circuit, std::span<const ff::Fr> z, ConstraintFailure* failure = nullptr,
                 unsigned threads = 0);

}  // namespace cuzk::r1cs
