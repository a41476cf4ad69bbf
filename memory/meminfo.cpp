#include "memory/meminfo.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cuzk::memory {

std::optional<uint64_t> ParseMemTotal(std::string_view text) { return ParseMemInfoField(text, "MemTotal:"); }

std::optional<uint64_t> ParseMemInfoField(std::string_view text, std::string_view kKey) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    uint64_t value = 0;
    size_t digits = 0;
    for (; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i, ++digits) {
      if (value > (~uint64_t(0) - 9) / 10) return std::nullopt;
      value = value * 10 + uint64_t(line[i] - '0');
    }
    if (digits == 0) return std::nullopt;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::string_view unit = line.substr(i);
    while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.remove_suffix(1);
    if (unit == "kB") return value << 10;  // the kernel's "kB" is KiB
    if (unit.empty()) return value;
    return std::nullopt;
  }
  return std::nullopt;
}

MemInfo ReadMemInfo(const std::string& meminfo_path) {
  std::ifstream in(meminfo_path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  return {.total_bytes = ParseMemInfoField(text, "MemTotal:").value_or(0),
          .available_bytes = ParseMemInfoField(text, "MemAvailable:").value_or(0)};
}

uint64_t AutoBudgetBytes(uint64_t safety_margin, const std::string& meminfo_path) {
  std::ifstream in(meminfo_path);
  if (!in) throw std::runtime_error("cannot read " + meminfo_path + " to size the memory budget");
  std::stringstream ss;
  ss << in.rdbuf();
  auto total = ParseMemTotal(ss.str());
  if (!total) throw std::runtime_error("no MemTotal line in " + meminfo_path);
  if (*total <= safety_margin)
    throw std::runtime_error("MemTotal (" + std::to_string(*total) + " bytes) is not above the safety margin (" +
                             std::to_string(safety_margin) + " bytes)");
  return *total - safety_margin;
}

}  // namespace cuzk::memory
