#pragma once
// Standard base64 (RFC 4648 section 4, '+' '/', '=' padding): the encoding Go's
// encoding/json uses for []byte, hence for the vanilla proofs that Curio's bench
// tool and `cuzk-cli snap gen-vanilla` store as a JSON array of strings.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::filecoin {

std::string Base64Encode(std::span<const uint8_t> bytes);
// Strict: length a multiple of 4, only the alphabet, padding only at the end,
// unused bits zero. Throws std::invalid_argument naming the offending position.
std::vector<uint8_t> Base64Decode(std::string_view text);

}  // namespace cuzk::filecoin
