#include "engine/circuits/snarkjs/sym_file.hpp"

#include <charconv>

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/format_error.hpp"

namespace cuzk::snarkjs {

std::vector<std::string> ParseSymWireNames(std::string_view text, uint32_t n_wires, const std::string& name) {
  std::vector<std::string> names(n_wires);
  if (n_wires > 0) names[0] = "one";
  size_t line_no = 0;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    auto bad = [&](const std::string& why) {
      return FormatError(name + ":" + std::to_string(line_no) + ": " + why + " (expected label,wire,component,name)");
    };
    // Three numbers, then the name (which may itself contain commas only in
    // pathological circuits: everything after the third comma is the name).
    int64_t fields[3];
    for (int64_t& f : fields) {
      size_t comma = line.find(',');
      if (comma == std::string_view::npos) throw bad("too few fields");
      auto [ptr, ec] = std::from_chars(line.data(), line.data() + comma, f);
      if (ec != std::errc() || ptr != line.data() + comma)
        throw bad("\"" + std::string(line.substr(0, comma)) + "\" is not a number");
      line.remove_prefix(comma + 1);
    }
    if (line.empty()) throw bad("empty signal name");
    int64_t wire = fields[1];
    if (wire == -1) continue;  // removed by the optimizer
    if (wire < 0 || wire >= int64_t(n_wires)) {
      throw bad("wire " + std::to_string(wire) + " is outside the circuit's " + std::to_string(n_wires) + " wires");
    }
    if (names[size_t(wire)].empty() || wire == 0) names[size_t(wire)] = std::string(line);
  }
  return names;
}

std::vector<std::string> ReadSymWireNames(const std::string& path, uint32_t n_wires) {
  return ParseSymWireNames(ReadFileText(path), n_wires, path);
}

}  // namespace cuzk::snarkjs
