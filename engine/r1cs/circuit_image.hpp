#pragma once
// Circuit images: a CompiledCircuit written once in its memory form (the
// CSR arrays and the density words), so a restart copies it instead of
// recording the circuit again (SnapDeals 32 GiB: 63.7 s on one thread of the
// H200 host; reading its image is a copy on every thread).
//
// The source digest says what the circuit was compiled from: the caller
// passes the circuit id and the digest of the compiler's sources
// (CircuitCompilerDigest(): every source file that decides the rows,
// hashed by CMake at configure time), so an image made by another build of
// the circuit code is stale (util::CacheError) and recompiled. Per-section
// digests catch damage; the reader also checks that row offsets rise to the
// matrix's nonzero count and every column names a variable, so even an
// image that matches its digests cannot send the evaluator out of bounds.
// Constraint names are not stored (they are recorded only on request).
//
//   uint64_t source = r1cs::CircuitImageSource("snap-32g");
//   r1cs::WriteCircuitImage(circuit, path, source);
//   r1cs::CompiledCircuit c = r1cs::ReadCircuitImage(path, source);
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {

// Hex SHA-256 over the circuit compiler's source files (generated at configure time).
std::string_view CircuitCompilerDigest();
// The source digest of circuit `circuit_id` compiled by this build.
uint64_t CircuitImageSource(std::string_view circuit_id);

// std::system_error for I/O; util::CacheError when cancelled. Returns the bytes written.
uint64_t WriteCircuitImage(const CompiledCircuit& circuit, const std::string& path, uint64_t source,
                           const std::atomic<bool>* cancel = nullptr);
// util::CacheError when the image is missing, stale, damaged or inconsistent.
CompiledCircuit ReadCircuitImage(const std::string& path, uint64_t source, unsigned threads = 0);

// The circuit without its matrices: counts and densities read (digests
// checked), each matrix's arrays sized (util::OverwriteVector: reserved,
// never touched) with only their first and last elements read, digests NOT
// checked (what cuda_backend's CircuitFingerprint reads); the elements
// between are unspecified (reserved memory, never written), as in a circuit
// whose host copy was given back (prover/host_copy.hpp). For a daemon whose GPUs evaluate a/b/c from the
// compact image (r1cs/compact_image.hpp): 17.9 GB not read at 32 GiB.
// Nothing may evaluate or compact these matrices.
CompiledCircuit ReadCircuitImageShell(const std::string& path, uint64_t source);

// A circuit's counts from its image's header and meta section (a few KiB
// read, digests checked): what sizing a job's partitions needs before the
// set loads, without counting the circuit (32 GiB: ~1 s on the H200 host).
struct CircuitImageCounts {
  uint64_t num_inputs = 0, num_aux = 0, constraints = 0;
};
CircuitImageCounts ReadCircuitImageCounts(const std::string& path, uint64_t source);

}  // namespace cuzk::r1cs
