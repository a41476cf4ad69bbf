#include "scheduler/priority.hpp"

#include <cctype>
#include <string>

namespace cuzk::scheduler {

std::string_view PriorityName(Priority p) {
  switch (p) {
    case Priority::kLow: return "LOW";
    case Priority::kNormal: return "NORMAL";
    case Priority::kHigh: return "HIGH";
    case Priority::kCritical: return "CRITICAL";
  }
  return "UNKNOWN";
}

std::optional<Priority> ParsePriority(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  for (Priority p : {Priority::kLow, Priority::kNormal, Priority::kHigh, Priority::kCritical})
    if (upper == PriorityName(p)) return p;
  return std::nullopt;
}

}  // namespace cuzk::scheduler
