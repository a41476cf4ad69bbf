#pragma once
// Logging: spdlog's default logger, as text lines or JSON lines (one object
// per line: {"ts", "level", "msg"}), and cuzk's machine-readable TIMELINE
// lines (TIMELINE,<ms since start>,<event>,<job_id>,<detail>), kept in the
// reference's format so existing log analysis keeps working.
//
//   SetupLogging("info", "json");          // std::invalid_argument for an unknown level
//   Timeline("SYNTH_START", job_id, "partition=0");
#include <string>
#include <string_view>

namespace cuzk::daemon {

void SetupLogging(const std::string& level, const std::string& format);
void Timeline(std::string_view event, std::string_view job_id, std::string_view detail);

}  // namespace cuzk::daemon
