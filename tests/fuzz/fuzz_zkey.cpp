// libFuzzer target: the snarkjs Groth16 .zkey reader
// (engine/circuits/snarkjs/zkey_file.hpp, ParseZkey: what ReadZkey runs over
// the mapped file, for the daemon's GENERIC_R1CS parameter sets). Input: the file.
//
// Oracles: only FormatError is thrown; an accepted key's sections agree with
// its header (one IC point per public signal and ONE, one L point per private
// variable).
#include <cstdint>
#include <cstdlib>
#include <span>

#include "engine/circuits/snarkjs/format_error.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cuzk::snarkjs::ZkeyFile zkey;
  try {
    zkey = cuzk::snarkjs::ParseZkey(std::span<const uint8_t>(data, size), "fuzz.zkey", {.threads = 1});
  } catch (const cuzk::snarkjs::FormatError&) {
    return 0;
  }
  if (zkey.pk.vk.ic.size() != uint64_t(zkey.n_public) + 1) std::abort();
  if (zkey.pk.l.size() != uint64_t(zkey.n_vars) - zkey.n_public - 1) std::abort();
  return 0;
}
