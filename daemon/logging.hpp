#pragma once
// Logging: spdlog's default logger, as text lines or JSON lines (one object
// per line: {"ts", "level", "msg"}). The pipeline's TIMELINE lines
// (scheduler/timeline.hpp) are logged through it at info.
//
//   SetupLogging("info", "json");          // std::invalid_argument for an unknown level
#include <string>
#include <string_view>

namespace cuzk::daemon {

void SetupLogging(const std::string& level, const std::string& format);

}  // namespace cuzk::daemon
