#include "daemon/auth_token.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace cuzk::daemon {
namespace {

// A token must fit in one header value: printable ASCII without spaces
// (RFC 6750's b64token is narrower; anything printable is accepted here so
// that operators' random strings work).
bool IsTokenChar(char c) { return c > 0x20 && c < 0x7f; }

// A token is a line, not a file's worth: reading stops past kMaxTokenBytes
// (a token_file pointed at /dev/zero or a log is refused, not slurped).
constexpr size_t kMaxTokenBytes = 4096;

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("auth.token_file " + path + ": cannot read it (" + std::strerror(errno) + ")");
  std::string text(kMaxTokenBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (in.bad()) throw std::runtime_error("auth.token_file " + path + ": read error");
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxTokenBytes) {
    throw std::runtime_error("auth.token_file " + path + ": longer than " + std::to_string(kMaxTokenBytes) +
                             " bytes (it should hold one token)");
  }
  return text;
}

void WarnIfReadableByOthers(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return;
  if (st.st_mode & (S_IRGRP | S_IROTH)) {
    spdlog::warn("auth.token_file {} is readable by its group or by everyone (mode {:04o}): chmod 600 it", path,
                 st.st_mode & 07777);
  }
}

}  // namespace

std::string LoadTokenFile(const std::string& path) {
  std::string token = ReadWhole(path);
  while (!token.empty() &&
         (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) throw std::runtime_error("auth.token_file " + path + ": the file is empty");
  for (char c : token) {
    if (!IsTokenChar(c)) {
      throw std::runtime_error("auth.token_file " + path +
                               ": the token holds a space or a control character (one line of printable ASCII)");
    }
  }
  WarnIfReadableByOthers(path);
  return token;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  // volatile: the compiler may not turn the loop into an early-exit memcmp.
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff = diff | (static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]));
  return diff == 0;
}

bool BearerMatches(std::string_view header, std::string_view token) {
  constexpr std::string_view kScheme = "bearer ";
  if (header.size() <= kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return false;
  }
  return ConstantTimeEquals(header.substr(kScheme.size()), token);
}

}  // namespace cuzk::daemon
