#pragma once
// The fast witness path of the EmptySectorUpdate circuit: the assignment that
// SynthesizeEmptySectorUpdateWitness (the gadgets under r1cs::WitnessCS)
// produces, computed directly: Poseidon intermediates from the native
// optimized-static algorithm, SHA-256 aux on 32-bit words, bit
// decompositions and picks from integers. Nothing is synthesized.
//
//   r1cs::Assignment z = ComputeEmptySectorUpdateWitness(shape, circuit_witness, {.threads = 16});
//   groth16::Prove(backend, pk, compiled_circuit, std::move(z));
//
// Because the aux layout is fixed by the shape (every challenge's block has
// the same size), the apex tree's nodes and the challenges are written at
// known offsets on `threads` threads; the gadget path is one sequential pass.
// Equality with the gadget path is tested value by value (2 KiB, 8 KiB).
// Memory: the assignment itself (32 GiB partition: 81M values, 2.6 GB).
#include <cstdint>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/r1cs/assignment.hpp"

namespace cuzk::snapdeals::witness {

struct NativeWitnessOptions {
  unsigned threads = 0;  // 0 = all hardware threads
};

// Throws std::invalid_argument if the witness does not fit the shape.
r1cs::Assignment ComputeEmptySectorUpdateWitness(const filecoin::SectorShape& shape, const CircuitWitness& witness,
                                                 const NativeWitnessOptions& options = {});

// The aux count of the layout this path writes (equal to the circuit's).
uint64_t EmptySectorUpdateAuxCount(const filecoin::SectorShape& shape);

}  // namespace cuzk::snapdeals::witness
