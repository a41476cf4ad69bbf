#include "tests/support/oracle.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <stdexcept>

namespace cuzk::test {

std::string SourcePath(const std::string& relative) { return std::string(CUZK_SOURCE_DIR) + "/" + relative; }

int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + command);
  char buf[65536];
  size_t n;
  output->clear();
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) output->append(buf, n);
  int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

nlohmann::json RunOracle(const std::string& script, const std::vector<std::string>& args) {
  std::string dir = SourcePath("tests/oracle");
  std::string cmd = "cd '" + dir + "' && node '" + script + "'";
  for (const auto& a : args) cmd += " '" + a + "'";
  // stderr separated so that warnings cannot corrupt the JSON.
  std::string err_file = "/tmp/cuzk-oracle-" + std::to_string(::getpid()) + ".err";
  FILE* pipe = ::popen((cmd + " 2>" + err_file).c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + cmd);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string err;
    if (FILE* f = std::fopen(err_file.c_str(), "r")) {
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) err.append(buf, n);
      std::fclose(f);
    }
    std::remove(err_file.c_str());
    throw std::runtime_error("oracle failed: " + cmd + "\n" + err +
                             "\n(run scripts/setup.sh to install Node.js and the npm oracles)");
  }
  std::remove(err_file.c_str());
  return nlohmann::json::parse(out);
}

std::string ToHex(const uint8_t* data, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) s += kDigits[data[i] >> 4], s += kDigits[data[i] & 15];
  return s;
}

std::vector<uint8_t> FromHex(const std::string& hex) {
  size_t start = (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) ? 2 : 0;
  if ((hex.size() - start) % 2) throw std::invalid_argument("odd hex length");
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument("bad hex digit");
  };
  std::vector<uint8_t> out;
  for (size_t i = start; i < hex.size(); i += 2) out.push_back(uint8_t(nib(hex[i]) << 4 | nib(hex[i + 1])));
  return out;
}

}  // namespace cuzk::test
