#include "scheduler/timeline.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace cuzk::scheduler {

std::string TimelineLine(double ms, std::string_view event, std::string_view job, std::string_view detail) {
  std::string s = "TIMELINE,";
  s += std::to_string(int64_t(std::llround(ms)));
  s += ',';
  s += event;
  s += ',';
  s += job;
  s += ',';
  s += detail;
  return s;
}

namespace {

bool ParseInt(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::optional<TimelineEvent> ParseTimelineLine(std::string_view line) {
  const size_t at = line.find("TIMELINE,");
  if (at == std::string_view::npos) return std::nullopt;
  line.remove_prefix(at + 9);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  auto bad = [&](const char* why) {
    return std::invalid_argument(std::string("bad TIMELINE line (") + why + "): TIMELINE," + std::string(line));
  };
  // <ms>,<event>,<job>,<detail>: the detail itself contains commas.
  std::string_view f[3];
  for (auto& field : f) {
    size_t c = line.find(',');
    if (c == std::string_view::npos) throw bad("fewer than 4 fields");
    field = line.substr(0, c);
    line.remove_prefix(c + 1);
  }
  TimelineEvent e;
  int64_t ms;
  if (!ParseInt(f[0], ms)) throw bad("ms is not an integer");
  e.ms = double(ms);
  if (f[1].empty()) throw bad("empty event");
  e.event = std::string(f[1]);
  e.job = std::string(f[2]);
  std::string_view detail = line;
  while (!detail.empty()) {
    size_t c = detail.find(',');
    std::string_view kv = detail.substr(0, c);
    detail = c == std::string_view::npos ? std::string_view() : detail.substr(c + 1);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "partition" || k == "worker") {
      int64_t n;
      if (!ParseInt(v, n) || n < 0) throw bad("partition/worker is not a number");
      (k == "partition" ? e.partition : e.worker) = n;
    }
  }
  return e;
}

}  // namespace cuzk::scheduler
