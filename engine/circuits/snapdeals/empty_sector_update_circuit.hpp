#pragma once
// The SnapDeals EmptySectorUpdate circuit of one partition, variable for
// variable and row for row as rust-fil-proofs storage-proofs-update
// circuit.rs synthesizes it (snapdeals spec section 6), so that proofs are
// valid under Filecoin's published parameters. Every supported sector shape
// (1/2/4/8/16/32 KiB, 8/16 MiB, 512 MiB, 32/64 GiB).
//
//   auto shape = filecoin::SectorShape::FromSectorSize(2048);
//   r1cs::CompiledCircuit circuit = CompileEmptySectorUpdate(shape);       // record once per shape
//   CircuitWitness w = MakeCircuitWitness(shape, k, commitments, partition_proof);
//   r1cs::Assignment z = SynthesizeEmptySectorUpdateWitness(shape, w);     // gadget path (WitnessCS)
//   auto failure = CheckEmptySectorUpdate(shape, w);                        // first failing row, by name
//
// Sizes: 2 KiB 1,705,039 rows, 32 GiB 81,049,499 (CountEmptySectorUpdate
// counts without keeping rows; recording big shapes needs tens of GB).
// The fast witness path for proving is witness/native_witness.hpp; it
// produces exactly SynthesizeEmptySectorUpdateWitness's assignment.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof.hpp"
#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/compiled_circuit.hpp"
#include "engine/r1cs/evaluate.hpp"
#include "engine/r1cs/record.hpp"

namespace cuzk::snapdeals {

// Public inputs (after ONE) of the circuit: k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
inline constexpr unsigned kEmptySectorUpdatePublicInputs = 4;

// Every value the circuit of partition k needs (spec sections 4 and 5).
struct CircuitWitness {
  unsigned k = 0;
  ff::Fr k_and_h_select;
  ff::Fr comm_r_old, comm_d_new, comm_r_new;
  ff::Fr comm_c, root_r_old, root_r_new;
  std::vector<ff::Fr> apex_leafs;      // A
  std::vector<ff::Fr> partition_path;  // pbl siblings (TreeD levels L + abl ..)

  struct Challenge {
    ff::Fr leaf_r_old, leaf_d_new;
    std::vector<std::vector<ff::Fr>> path_r_old, path_r_new;  // per TreeR level, arity - 1 siblings
    std::vector<ff::Fr> path_to_apex;                         // L TreeD siblings
  };
  std::vector<Challenge> challenges;  // CC
};

// From a vanilla PartitionProof (spec section 5). Throws std::invalid_argument
// when the proof does not fit the shape (counts, path lengths, a challenge's
// partition path differing from challenge 0's: upstream asserts those) and
// filecoin::CommitmentError for a non-canonical commitment.
CircuitWitness MakeCircuitWitness(const filecoin::SectorShape& shape, unsigned k,
                                  const filecoin::Commitments& commitments, const filecoin::PartitionProof& proof);

// Synthesizes the circuit into any constraint system (explicitly instantiated
// for r1cs::RecordingCS, WitnessCS, CheckingCS and CountingCS,
// DensityCountingCS). `witness` may be null for systems without values.
template <class CS>
void SynthesizeEmptySectorUpdate(CS& cs, const filecoin::SectorShape& shape, const CircuitWitness* witness);

struct CircuitCounts {
  uint64_t constraints = 0;  // synthesize() rows (without the prover's input rows)
  uint64_t inputs = 0;       // ONE included (5)
  uint64_t aux = 0;
  // The Groth16 domain: smallest power of two >= constraints + inputs.
  unsigned DomainLog2() const;
};

struct CircuitDensity {
  CircuitCounts counts;
  uint64_t a_dense_aux = 0;     // the .params a section holds inputs + these
  uint64_t b_dense_aux = 0;     // b_g1/b_g2 hold the B-dense inputs + these
  uint64_t b_dense_inputs = 0;  // 1 (ONE)
};

// Counting only (no rows kept, no LCs built): 32 GiB in seconds, O(1) memory.
CircuitCounts CountEmptySectorUpdate(const filecoin::SectorShape& shape);
// Counting with A/B densities (resolves every A and B LC; as slow as recording).
CircuitDensity CountEmptySectorUpdateDensity(const filecoin::SectorShape& shape);

// RecordingCS: the CompiledCircuit (no witness needed).
r1cs::CompiledCircuit CompileEmptySectorUpdate(const filecoin::SectorShape& shape,
                                               const r1cs::RecordOptions& options = {});

// WitnessCS through the gadgets: the full assignment (inputs, then aux).
r1cs::Assignment SynthesizeEmptySectorUpdateWitness(const filecoin::SectorShape& shape, const CircuitWitness& witness);

// CheckingCS: every row evaluated as it is enforced; the first failing one
// (full namespaced name) or nullopt. `counts` (if given) receives the counts
// of what was synthesized. With stop_at_first_failure synthesis ends at the
// first failing row (a wrong comm_r fails within the first thousand rows),
// so the counts are then partial.
std::optional<r1cs::ConstraintFailure> CheckEmptySectorUpdate(const filecoin::SectorShape& shape,
                                                              const CircuitWitness& witness,
                                                              CircuitCounts* counts = nullptr,
                                                              bool stop_at_first_failure = false);

// Filecoin's parameter file name for this shape without the extension (spec
// section 10): "v28-empty-sector-update-merkletree-poseidon_hasher-{base}-{sub}-{top}-"
// + hex sha256 of "empty_sector_update::PublicParams{ sector_nodes: N }".
// Append ".params" / ".vk".
std::string EmptySectorUpdateParamsStem(const filecoin::SectorShape& shape);

}  // namespace cuzk::snapdeals
