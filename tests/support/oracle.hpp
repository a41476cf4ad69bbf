#pragma once
// Runs an independent implementation (a Node.js script under tests/oracle/,
// using npm packages installed by scripts/setup.sh) and returns its JSON output.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cuzk::test {

// Runs `node tests/oracle/<script> args...` from the oracle folder and parses
// stdout as JSON. Throws std::runtime_error (with stderr) if node or the npm
// packages are missing or the script fails.
nlohmann::json RunOracle(const std::string& script, const std::vector<std::string>& args);

// Runs a shell command, returns its exit code; stdout+stderr go to *output.
int RunCommand(const std::string& command, std::string* output);

// Absolute path of a file in the source tree.
std::string SourcePath(const std::string& relative);

// Bytes <-> lower-case hex without prefix.
std::string ToHex(const uint8_t* data, size_t n);
std::vector<uint8_t> FromHex(const std::string& hex);

}  // namespace cuzk::test
