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
//   std::vector<ff::Fr> buffer;                     // reused partition after partition
//   std::span<const ff::Fr> z = ComputeEmptySectorUpdateWitnessInto(shape, circuit_witness, buffer);
//
// Because the aux layout is fixed by the shape (every challenge's block has
// the same size), the apex tree's nodes and the challenges are written at
// known offsets on `threads` threads; the gadget path is one sequential pass.
// Equality with the gadget path is tested value by value (2 KiB, 8 KiB).
// Memory: the assignment itself (32 GiB partition: 81M values, 2.6 GB). A
// fresh one is zeroed first: ~650k page faults at 32 GiB (huge pages, where
// available, cut them 512x); the Into forms write into caller memory instead
// (every value is written, none is read: no clearing, no copy), which is what
// the daemon's witness-only synthesis does with a pooled buffer
// (witness_buffer_pool.hpp).
#include <cstdint>
#include <span>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/ff/fr.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/r1cs/assignment.hpp"

namespace cuzk::snapdeals::witness {

struct NativeWitnessOptions {
  unsigned threads = 0;  // 0 = all hardware threads
};

// ONE and the public inputs: z[0 .. kEmptySectorUpdateNumInputs).
inline constexpr uint64_t kEmptySectorUpdateNumInputs = 1 + kEmptySectorUpdatePublicInputs;

// Throws std::invalid_argument if the witness does not fit the shape.
r1cs::Assignment ComputeEmptySectorUpdateWitness(const filecoin::SectorShape& shape, const CircuitWitness& witness,
                                                 const NativeWitnessOptions& options = {});

// Into caller memory of exactly EmptySectorUpdateVariableCount(shape) values
// (std::invalid_argument otherwise, as for a witness that does not fit):
// every value is overwritten, so what the memory held before (an earlier
// partition's witness) cannot leak into this one.
void ComputeEmptySectorUpdateWitnessInto(const filecoin::SectorShape& shape, const CircuitWitness& witness,
                                         std::span<ff::Fr> z, const NativeWitnessOptions& options = {});

// Into a reused vector: sized to the variable count, its storage kept when
// its capacity suffices (no allocation; a vector that grows gets fresh
// storage, huge pages requested as for a fresh assignment). Returns z (the
// vector's values; z[0 .. kEmptySectorUpdateNumInputs) are ONE and the inputs).
std::span<const ff::Fr> ComputeEmptySectorUpdateWitnessInto(const filecoin::SectorShape& shape,
                                                            const CircuitWitness& witness, std::vector<ff::Fr>& buffer,
                                                            const NativeWitnessOptions& options = {});

// The aux count of the layout this path writes (equal to the circuit's).
uint64_t EmptySectorUpdateAuxCount(const filecoin::SectorShape& shape);
// kEmptySectorUpdateNumInputs + EmptySectorUpdateAuxCount(shape): z's length.
uint64_t EmptySectorUpdateVariableCount(const filecoin::SectorShape& shape);

}  // namespace cuzk::snapdeals::witness
