#include "engine/circuits/synthetic/synthetic_circuit.hpp"

#include "engine/r1cs/record.hpp"
#include "engine/r1cs/witness.hpp"

namespace cuzk::circuits::synthetic {

r1cs::CompiledCircuit Record(const SyntheticParams& p, bool record_names) {
  r1cs::RecordingCS cs({.record_names = record_names});
  Synthesize(cs, p, 0);
  return std::move(cs).Finish();
}

r1cs::Assignment Witness(const SyntheticParams& p, uint64_t witness_seed) {
  CheckParams(p);
  r1cs::WitnessCS cs(p.num_inputs(), p.num_constraints());
  Synthesize(cs, p, witness_seed);
  return cs.TakeAssignment();
}

}  // namespace cuzk::circuits::synthetic
