#pragma once
// Job priorities, most urgent first: CRITICAL > HIGH > NORMAL > LOW. The
// numeric values are those of cuzk.v1.Priority, so the daemon maps the wire
// enum by value (0, "the kind's default", is resolved before it gets here).
#include <cstdint>
#include <optional>
#include <string_view>

namespace cuzk::scheduler {

enum class Priority : uint8_t { kLow = 1, kNormal = 2, kHigh = 3, kCritical = 4 };

// "CRITICAL", "HIGH", "NORMAL", "LOW".
std::string_view PriorityName(Priority p);
// Accepts the names above in any case; nullopt otherwise.
std::optional<Priority> ParsePriority(std::string_view name);
// For memory::Budget, which orders waiters by a plain int (higher first).
inline int BudgetPriority(Priority p) { return static_cast<int>(p); }

}  // namespace cuzk::scheduler
