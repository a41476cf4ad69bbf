#pragma once
// circom's .sym file (circom --sym): one line per signal,
//   labelIndex,wireIndex,componentIndex,name      e.g. "9,9,0,main.prod[1]"
// with wireIndex -1 for signals the optimizer removed. We keep the first
// name of each surviving wire, to name the wires of a failing constraint.
//
//   std::vector<std::string> names = ReadSymWireNames("c.sym", r1cs.n_wires);
//   names[9] == "main.prod[1]"; names[0] == "one" (circom lists no name for it)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::snarkjs {

// One name per wire ("" where the file names none). Throws FormatError naming
// the line for malformed lines and wire indices >= n_wires.
std::vector<std::string> ParseSymWireNames(std::string_view text, uint32_t n_wires, const std::string& name);
std::vector<std::string> ReadSymWireNames(const std::string& path, uint32_t n_wires);

}  // namespace cuzk::snarkjs
