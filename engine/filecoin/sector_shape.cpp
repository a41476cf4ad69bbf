#include "engine/filecoin/sector_shape.hpp"

#include <cctype>
#include <stdexcept>

namespace cuzk::filecoin {
namespace {

struct TreeRConfig {
  unsigned log2_nodes;
  unsigned sub_arity;
  unsigned top_arity;
};

// TreeR sub/top arities per supported size (rust-fil-proofs SECTOR_SIZE_* tree
// configurations; spec section 1). The base arity is always 8.
constexpr TreeRConfig kTreeRConfigs[] = {
    {5, 4, 0},   // 1 KiB (test size)
    {6, 0, 0},   // 2 KiB
    {7, 2, 0},   // 4 KiB (test size)
    {8, 4, 0},   // 8 KiB (test size)
    {9, 8, 0},   // 16 KiB (test size)
    {10, 8, 2},  // 32 KiB (test size)
    {18, 0, 0},  // 8 MiB
    {19, 2, 0},  // 16 MiB (test size)
    {24, 0, 0},  // 512 MiB
    {30, 8, 0},  // 32 GiB
    {31, 8, 2},  // 64 GiB
};

unsigned Log2(uint64_t v) { return 63u - unsigned(__builtin_clzll(v)); }

std::string SupportedList() {
  std::string s;
  for (uint64_t b : SupportedSectorSizes()) {
    if (!s.empty()) s += ", ";
    s += FormatSectorSize(b);
  }
  return s;
}

}  // namespace

const std::vector<uint64_t>& SupportedSectorSizes() {
  static const std::vector<uint64_t> sizes = [] {
    std::vector<uint64_t> v;
    for (const auto& c : kTreeRConfigs) v.push_back(uint64_t(32) << c.log2_nodes);
    return v;
  }();
  return sizes;
}

std::string FormatSectorSize(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned unit = 0;
  uint64_t v = bytes;
  while (unit < 4 && v >= 1024 && v % 1024 == 0) v /= 1024, ++unit;
  return std::to_string(v) + kUnits[unit];
}

uint64_t ParseSectorSize(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0 || digits > 18) {
    throw std::invalid_argument("sector size '" + std::string(text) +
                                "': expected a number with an optional KiB/MiB/GiB unit");
  }
  uint64_t value = std::stoull(std::string(t.substr(0, digits)));
  std::string unit;
  for (char ch : t.substr(digits)) unit.push_back(char(std::tolower(static_cast<unsigned char>(ch))));
  unsigned shift;
  if (unit.empty() || unit == "b") {
    shift = 0;
  } else if (unit == "k" || unit == "kb" || unit == "kib") {
    shift = 10;
  } else if (unit == "m" || unit == "mb" || unit == "mib") {
    shift = 20;
  } else if (unit == "g" || unit == "gb" || unit == "gib") {
    shift = 30;
  } else {
    throw std::invalid_argument("sector size '" + std::string(text) + "': unknown unit '" + unit +
                                "' (use KiB, MiB or GiB)");
  }
  if (value > (~uint64_t(0) >> shift))
    throw std::invalid_argument("sector size '" + std::string(text) + "' is too large");
  return value << shift;
}

SectorShape SectorShape::FromSectorSize(uint64_t sector_bytes) {
  const TreeRConfig* config = nullptr;
  for (const auto& c : kTreeRConfigs) {
    if ((uint64_t(32) << c.log2_nodes) == sector_bytes) config = &c;
  }
  if (!config) {
    throw std::invalid_argument("unsupported SnapDeals sector size " + FormatSectorSize(sector_bytes) + " (" +
                                std::to_string(sector_bytes) + " bytes); supported: " + SupportedList());
  }
  SectorShape s;
  s.sector_bytes = sector_bytes;
  s.nodes = uint64_t(1) << config->log2_nodes;
  s.challenge_bit_len = config->log2_nodes;
  s.sub_arity = config->sub_arity;
  s.top_arity = config->top_arity;
  unsigned non_base_bits = (s.sub_arity ? Log2(s.sub_arity) : 0) + (s.top_arity ? Log2(s.top_arity) : 0);
  s.base_levels = (s.challenge_bit_len - non_base_bits) / 3;  // exact for every configuration above

  // Partition and challenge counts: rust-fil-proofs storage-proofs-update constants.rs.
  const uint64_t n = s.nodes;
  s.partitions = n <= (1u << 8) ? 1 : n <= (1u << 10) ? 2 : n <= (1u << 19) ? 4 : 16;
  s.partition_bit_len = Log2(s.partitions);
  s.challenge_count = n <= (1u << 19) ? 10 : 86;
  s.apex_leaf_count = n <= (1u << 8) ? 8 : 128;
  s.apex_bit_len = Log2(s.apex_leaf_count);
  s.challenge_random_bits = s.challenge_bit_len - s.partition_bit_len;
  s.challenges_per_digest = 254 / s.challenge_random_bits;  // 254 = Fr::CAPACITY
  s.digests_per_partition = (s.challenge_count + s.challenges_per_digest - 1) / s.challenges_per_digest;
  s.apex_levels = s.challenge_bit_len - s.partition_bit_len - s.apex_bit_len;

  if (n <= (1u << 10)) {
    s.h_choices = {1, 1, 1, 1, 1, 1};
    s.h = 1;
  } else {
    s.h_choices = {7, 8, 9, 10, 11, 12};
    s.h = s.h_choices[3];
  }
  return s.WithH(s.h);
}

SectorShape SectorShape::WithH(unsigned new_h) const {
  for (unsigned i = 0; i < h_choices.size(); ++i) {
    if (h_choices[i] == new_h) {
      SectorShape s = *this;
      s.h = new_h;
      s.h_select = 1u << i;
      return s;
    }
  }
  std::string choices;
  for (unsigned c : h_choices) choices += (choices.empty() ? "" : ", ") + std::to_string(c);
  throw std::invalid_argument("h = " + std::to_string(new_h) + " is not allowed for " + Name() +
                              " sectors (choices: " + choices + ")");
}

std::vector<unsigned> SectorShape::TreeRArities() const {
  std::vector<unsigned> a(base_levels, base_arity);
  if (sub_arity) a.push_back(sub_arity);
  if (top_arity) a.push_back(top_arity);
  return a;
}

std::string SectorShape::Name() const { return FormatSectorSize(sector_bytes); }

}  // namespace cuzk::filecoin
