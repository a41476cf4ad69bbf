// libFuzzer target: the circom .r1cs reader (engine/circuits/snarkjs/r1cs_file.hpp,
// ParseR1cs: what ReadR1cs runs over the mapped file, for the daemon's
// GENERIC_R1CS parameter sets). Input: the file.
//
// Oracles: only FormatError is thrown; what it accepts serializes to a file
// that it reads back to the same serialization (write(read(write(x))) == write(x)).
#include <cstdint>
#include <cstdlib>
#include <span>

#include "engine/circuits/snarkjs/format_error.hpp"
#include "engine/circuits/snarkjs/r1cs_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cuzk::snarkjs::R1csFile r1cs;
  try {
    r1cs = cuzk::snarkjs::ParseR1cs(std::span<const uint8_t>(data, size), "fuzz.r1cs");
  } catch (const cuzk::snarkjs::FormatError&) {
    return 0;
  }
  std::vector<uint8_t> once = cuzk::snarkjs::SerializeR1cs(r1cs);
  std::vector<uint8_t> twice = cuzk::snarkjs::SerializeR1cs(cuzk::snarkjs::ParseR1cs(once, "fuzz.r1cs (rewritten)"));
  if (once != twice) std::abort();
  return 0;
}
