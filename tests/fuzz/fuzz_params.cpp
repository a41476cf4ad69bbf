// libFuzzer target: bellperson's .params reader (engine/groth16/params_io.hpp,
// ParseParams: what ReadParams runs over the mapped file). Input: the file.
//
// Oracles: only ParamsError is thrown; a key it accepts serializes back to the
// same bytes (uncompressed points have one encoding; trailing bytes are refused).
#include <cstdint>
#include <cstdlib>
#include <span>

#include "engine/groth16/params_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  cuzk::groth16::ProvingKey pk;
  try {
    // One thread: the fuzzer runs millions of small inputs; the threaded
    // decoder is the same code per chunk.
    pk = cuzk::groth16::ParseParams(bytes, "fuzz.params", {.threads = 1});
  } catch (const cuzk::groth16::ParamsError&) {
    return 0;
  }
  std::vector<uint8_t> again = cuzk::groth16::SerializeParams(pk, 1);
  if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
  return 0;
}
