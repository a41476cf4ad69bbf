#pragma once
// Sizing the budget from the machine: "auto" = MemTotal minus a safety margin
// (cuzk's memory.total_budget = "auto", memory.safety_margin = 5 GiB).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cuzk::memory {

inline constexpr uint64_t kDefaultSafetyMargin = uint64_t(5) << 30;

// MemTotal from the text of /proc/meminfo ("MemTotal:  263842148 kB"), in
// bytes; nullopt when the line is missing or malformed.
std::optional<uint64_t> ParseMemTotal(std::string_view meminfo_text);
// Any "<key> <n> kB" line ("MemAvailable:"), in bytes.
std::optional<uint64_t> ParseMemInfoField(std::string_view meminfo_text, std::string_view key);

// What the status page shows; 0 for a field the file lacks (or no file).
struct MemInfo {
  uint64_t total_bytes = 0, available_bytes = 0;
};
MemInfo ReadMemInfo(const std::string& meminfo_path = "/proc/meminfo");

// MemTotal - margin from the file (default /proc/meminfo). Throws
// std::runtime_error naming the file when it cannot be read or parsed, or
// when the margin leaves nothing.
uint64_t AutoBudgetBytes(uint64_t safety_margin = kDefaultSafetyMargin,
                         const std::string& meminfo_path = "/proc/meminfo");

}  // namespace cuzk::memory
