#pragma once
// Whole-file reads and writes for the cuzk tools (cuzk-cli, cuzk-bench; not
// cuzk-gpu-bench, which links no JSON library). A file that cannot be read or
// parsed is UnusableInput: cuzk-cli's verify commands exit 2 for it ("cannot
// use the input") rather than 1 ("invalid proof"); elsewhere the tool's main
// reports it like any other error (exit 2).
//
//   nlohmann::json sector = ReadJsonFile(dir / "sector.json");
//   WriteFileBytes(out, proof_bytes);
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::tools {

struct UnusableInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throw UnusableInput ("cannot read PATH", "PATH: <parser message>").
std::vector<uint8_t> ReadFileBytes(const std::filesystem::path& path);
nlohmann::json ReadJsonFile(const std::filesystem::path& path);

// Create or truncate; throw std::runtime_error("cannot write PATH").
void WriteFileBytes(const std::filesystem::path& path, std::span<const uint8_t> bytes);
void WriteFileText(const std::filesystem::path& path, std::string_view text);

}  // namespace cuzk::tools
