#pragma once
// Compact circuit images: the r1cs::CompactCircuit that witness-only GPU
// proving keeps on the device (compact_circuit.hpp), written once so that a
// restart reads it instead of building it again (r1cs::Compact of a 32 GiB
// SnapDeals partition: 5-9 s of every GPU preparation on the H200 host; its
// image is ~1/6 of the circuit image, ~3 GB).
//
// Same file format and trust rules as the circuit image (circuit_image.hpp,
// util/cache_file.hpp): the source digest is the circuit id and the
// compiler's digest, every section has its own digest, and a stale, cut or
// damaged file is a util::CacheError. On top of that, because the GPU
// evaluates a/b/c from this form alone, a compact image is only ever used
// next to the CompiledCircuit it claims to describe, and
// CheckCompactDescribes compares the two nonzero by nonzero (columns, row
// offsets, and each coefficient as the kernel reads it: code 0 is +1,
// code 1 is -1, kEscapeCode the escape list, else the table). That pass
// costs about one read of the circuit's matrices (~1-2 s at 32 GiB on 16
// threads), well below building the form.
//
//   r1cs::WriteCompactImage(r1cs::Compact(circuit), path, r1cs::CircuitImageSource(id));
//   r1cs::CompactCircuit cc = r1cs::ReadCompactImage(path, r1cs::CircuitImageSource(id));
//   r1cs::CheckCompactDescribes(cc, circuit);   // util::CacheError on any difference
#include <atomic>
#include <cstdint>
#include <string>

#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {

// std::system_error for I/O; util::CacheError when cancelled. Returns the bytes written.
uint64_t WriteCompactImage(const CompactCircuit& circuit, const std::string& path, uint64_t source,
                           const std::atomic<bool>* cancel = nullptr);

// util::CacheError when the image is missing, stale, damaged or
// inconsistent in itself (offsets that do not rise to the nonzero count,
// codes past the table, escape lists that do not match the escape codes).
CompactCircuit ReadCompactImage(const std::string& path, uint64_t source, unsigned threads = 0);

// util::CacheError naming the first difference unless `compact` is exactly
// `circuit`'s matrices in compact form (sizes, offsets, columns, every
// coefficient). threads: 0 = all.
void CheckCompactDescribes(const CompactCircuit& compact, const CompiledCircuit& circuit, unsigned threads = 0);

// util::CacheError unless `compact` has `circuit`'s counts (inputs, aux, and
// each matrix's rows and nonzeros) and the same first and last column of
// each matrix: for a circuit read without its matrices
// (ReadCircuitImageShell), where the element-by-element check cannot run.
// The compact image's own digests and source (the circuit id and the
// compiler's digest, as the circuit image's) vouch for the rest.
void CheckCompactShape(const CompactCircuit& compact, const CompiledCircuit& circuit);

}  // namespace cuzk::r1cs
