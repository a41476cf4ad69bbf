#include "engine/filecoin/commitment.hpp"

namespace cuzk::filecoin {

Domain DomainFromFr(const ff::Fr& x) {
  Domain d;
  x.ToBytes(d, ff::Endian::kLittle);
  return d;
}

ff::Fr DomainToFr(const Domain& d, std::string_view what) {
  auto x = ff::Fr::FromBytes(d, ff::Endian::kLittle);
  if (!x) {
    throw CommitmentError(std::string(what) + ": 32 bytes " + DomainToHex(d) +
                          " are not a canonical little-endian BLS12-381 scalar (value >= modulus)");
  }
  return *x;
}

bool IsCanonical(const Domain& d) { return ff::Fr::FromBytes(d, ff::Endian::kLittle).has_value(); }

std::string DomainToHex(const Domain& d) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (uint8_t b : d) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

Domain DomainFromHex(std::string_view hex, std::string_view what) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if (hex.size() != 64) {
    throw CommitmentError(std::string(what) + ": expected 64 hex digits (32 bytes), got " + std::to_string(hex.size()));
  }
  auto nibble = [&](char c) -> unsigned {
    if (c >= '0' && c <= '9') return unsigned(c - '0');
    if (c >= 'a' && c <= 'f') return unsigned(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return unsigned(c - 'A' + 10);
    throw CommitmentError(std::string(what) + ": '" + std::string(1, c) + "' is not a hex digit");
  };
  Domain d;
  for (size_t i = 0; i < 32; ++i) d[i] = uint8_t(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  DomainToFr(d, what);  // canonical check
  return d;
}

}  // namespace cuzk::filecoin
