#pragma once
// A synthetic circuit with its proving key as a .params file gives it (what
// key images are made from), bound to the circuit: the GPU key image tests'
// common fixture.
#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"

namespace cuzk::test {

struct Keyed {
  circuits::synthetic::SyntheticParams params;
  r1cs::CompiledCircuit circuit;
  groth16::ProvingKey pk;  // as from a .params file, bound
};

// 2^log_size constraints.
inline Keyed MakeKeyed(unsigned log_size) {
  Keyed k;
  k.params = {.log_size = log_size, .num_public = 3, .lc_width = 40, .lc_period = 8};
  k.circuit = circuits::synthetic::Record(k.params);
  k.pk = groth16::ParseParams(groth16::SerializeParams(groth16::GenerateParameters(k.circuit)), "k.params");
  groth16::BindCircuit(k.pk, k.circuit);
  return k;
}

}  // namespace cuzk::test
