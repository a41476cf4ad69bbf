// libFuzzer target: bellperson's .vk reader (engine/groth16/params_io.hpp,
// ParseVerifyingKey: what ReadVerifyingKey runs over the mapped file). Input:
// one byte choosing the expected IC count (0: none expected), then the file.
//
// Oracles: only ParamsError is thrown; an accepted key serializes back to the
// same bytes and has the expected IC count.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>

#include "engine/groth16/params_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::optional<uint64_t> expected_ic;
  if (data[0] != 0) expected_ic = data[0];
  std::span<const uint8_t> bytes(data + 1, size - 1);
  cuzk::groth16::VerifyingKey vk;
  try {
    vk = cuzk::groth16::ParseVerifyingKey(bytes, "fuzz.vk", expected_ic);
  } catch (const cuzk::groth16::ParamsError&) {
    return 0;
  }
  if (expected_ic && vk.ic.size() != *expected_ic) std::abort();
  std::vector<uint8_t> again = cuzk::groth16::SerializeVerifyingKey(vk);
  if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
  return 0;
}
