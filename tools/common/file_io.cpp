#include "tools/common/file_io.hpp"

#include <fstream>
#include <iterator>

namespace cuzk::tools {

std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UnusableInput("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json ReadJsonFile(const std::filesystem::path& path) {
  std::vector<uint8_t> bytes = ReadFileBytes(path);
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception& e) {
    throw UnusableInput(path.string() + ": " + e.what());
  }
}

void WriteFileBytes(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void WriteFileText(const std::filesystem::path& path, std::string_view text) {
  WriteFileBytes(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

}  // namespace cuzk::tools
