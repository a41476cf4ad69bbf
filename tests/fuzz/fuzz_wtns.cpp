// libFuzzer target: the circom .wtns reader (engine/circuits/snarkjs/wtns_file.hpp,
// ParseWtns). Input: the file.
//
// Oracles: only FormatError is thrown; an accepted witness written again
// reads back to the same values.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "engine/circuits/snarkjs/format_error.hpp"
#include "engine/circuits/snarkjs/wtns_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<cuzk::ff::Fr> witness;
  try {
    witness = cuzk::snarkjs::ParseWtns(std::span<const uint8_t>(data, size), "fuzz.wtns");
  } catch (const cuzk::snarkjs::FormatError&) {
    return 0;
  }
  std::vector<cuzk::ff::Fr> again =
      cuzk::snarkjs::ParseWtns(cuzk::snarkjs::SerializeWtns(witness), "fuzz.wtns (rewritten)");
  if (again.size() != witness.size()) std::abort();
  for (size_t i = 0; i < witness.size(); ++i) {
    if (!(again[i] == witness[i])) std::abort();
  }
  return 0;
}
