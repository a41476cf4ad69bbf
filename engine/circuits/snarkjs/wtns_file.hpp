#pragma once
// snarkjs's .wtns witness file (what `snarkjs wtns calculate` and circom's
// generated witness calculators write), format version 2:
//   1 header:  n8:u32  prime[n8]  nWitness:u32
//   2 values:  nWitness x value[n8], canonical little-endian
// The values are the circuit's wires in r1cs order: [0] = 1, then the public
// signals, then the rest (the layout of a CompiledCircuit's full assignment).
//
//   std::vector<ff::Fr> w = ReadWtns("witness.wtns");   // throws FormatError
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"

namespace cuzk::snarkjs {

std::vector<ff::Fr> ParseWtns(std::span<const uint8_t> bytes, const std::string& name);
std::vector<ff::Fr> ReadWtns(const std::string& path);

std::vector<uint8_t> SerializeWtns(std::span<const ff::Fr> witness);
void WriteWtns(const std::string& path, std::span<const ff::Fr> witness);

}  // namespace cuzk::snarkjs
