#include "daemon/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <stdexcept>

namespace cuzk::daemon {
namespace {

void Put(spdlog::memory_buf_t& out, std::string_view s) { out.append(s.data(), s.data() + s.size()); }

void AppendJsonString(std::string_view s, spdlog::memory_buf_t& out) {
  out.push_back('"');
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': Put(out, "\\\""); break;
      case '\\': Put(out, "\\\\"); break;
      case '\n': Put(out, "\\n"); break;
      case '\r': Put(out, "\\r"); break;
      case '\t': Put(out, "\\t"); break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          Put(out, buf);
        } else {
          out.push_back(char(ch));
        }
    }
  }
  out.push_back('"');
}

// {"ts":"2026-12-01T06:30:00.123Z","level":"info","msg":"..."}
class JsonLineFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const auto since_epoch = msg.time.time_since_epoch();
    const std::time_t secs = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
    const int millis = int(std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char ts[64];
    std::snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    Put(dest, "{\"ts\":\"");
    Put(dest, ts);
    Put(dest, "\",\"level\":");
    const auto level = spdlog::level::to_string_view(msg.level);
    AppendJsonString(std::string_view(level.data(), level.size()), dest);
    Put(dest, ",\"msg\":");
    AppendJsonString(std::string_view(msg.payload.data(), msg.payload.size()), dest);
    Put(dest, "}\n");
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonLineFormatter>(); }
};

}  // namespace

void SetupLogging(const std::string& level, const std::string& format) {
  const auto lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off") throw std::invalid_argument("unknown log level \"" + level + "\"");
  // stderr, unbuffered by line: the logs of a daemon killed by the OOM killer still end where it died.
  auto logger = std::make_shared<spdlog::logger>("cuzk", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (format == "json") {
    logger->set_formatter(std::make_unique<JsonLineFormatter>());
  } else if (format == "text") {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  } else {
    throw std::invalid_argument("unknown log format \"" + format + "\" (text or json)");
  }
  logger->set_level(lvl);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace cuzk::daemon
