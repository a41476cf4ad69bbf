#pragma once
// Assignment: the full variable vector z of one witness, in the global
// numbering of CompiledCircuit: z[0] = 1 (ONE), z[1..num_inputs) the public
// inputs, then the aux variables. This is what EvaluateAbc reads and what the
// Groth16 MSMs take as scalars, so it is one contiguous vector.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/ff/fr.hpp"

namespace cuzk::r1cs {

struct Assignment {
  uint64_t num_inputs = 0;     // includes ONE
  std::vector<ff::Fr> values;  // num_inputs + num_aux

  uint64_t num_aux() const { return values.size() - num_inputs; }
  std::span<const ff::Fr> inputs() const { return std::span<const ff::Fr>(values).first(num_inputs); }
  std::span<const ff::Fr> aux() const { return std::span<const ff::Fr>(values).subspan(num_inputs); }
  // The public inputs as a verifier takes them (without ONE).
  std::vector<ff::Fr> PublicInputs() const { return {values.begin() + 1, values.begin() + num_inputs}; }
};

}  // namespace cuzk::r1cs
