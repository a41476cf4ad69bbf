#pragma once
// bellperson's .vk and .params files (../shared/specs/snapdeals.md section 9).
//
//   .vk      alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 (uncompressed:
//            G1 96 bytes, G2 192), u32 BE ic_len, ic_len G1 points.
//   .params  the .vk, then five sections, each a u32 BE count followed by
//            uncompressed points: h (G1, m - 1), l (G1, one per aux), a (G1,
//            A-dense variables: inputs, then aux), b_g1 (G1, B-dense),
//            b_g2 (G2, B-dense).
//
// Reading maps the file (util::MappedFile) and decodes each section on all threads
// (ec::DecodeG1Batch). Every check happens before anything is allocated from
// the file's numbers: a count whose points do not fit in the rest of the
// file is a truncation error, and with ParamsReadOptions::expected a count
// that differs from the circuit's is an error too. Points: on-curve always;
// subgroup always for the verifying key, for the big sections only with
// check_subgroup (as bellperson, off by default: the files come from a
// ceremony with its own checks and the test costs an endomorphism
// multiplication per point); infinity is rejected everywhere (bellperson).
// Errors are ParamsError naming the file, the section, the point index and
// the reason. Trailing bytes after b_g2 are an error too (a corrupt or
// mismatched file). Nothing here crashes on any input.
//
// The file does not say which variables the a/b sections belong to: the
// circuit does (its densities). ReadParamsForCircuit checks every count
// against the circuit and copies its densities into the key.
//
//   groth16::ProvingKey pk = groth16::ReadParamsForCircuit("x.params", circuit);
//   groth16::VerifyingKey vk = groth16::ReadVerifyingKey("x.vk");
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/groth16/types.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::groth16 {

class ParamsError : public std::runtime_error {
 public:
  // index: the point's index in its section, when the error is about one point.
  ParamsError(const std::string& file, const std::string& section, std::optional<uint64_t> index,
              const std::string& what);
  const std::string& section() const { return section_; }
  std::optional<uint64_t> index() const { return index_; }

 private:
  std::string section_;
  std::optional<uint64_t> index_;
};

// Point counts of a .params file.
struct ParamsShape {
  uint64_t ic = 0;  // inputs, ONE included
  uint64_t h = 0;   // m - 1
  uint64_t l = 0;   // aux
  uint64_t a = 0;   // A-dense variables
  uint64_t b = 0;   // B-dense variables (b_g1 and b_g2)

  // The counts a bellperson setup gives the circuit (m = the next power of
  // two >= constraints + inputs).
  static ParamsShape ForCircuit(const r1cs::CompiledCircuit& circuit);
  static ParamsShape Of(const ProvingKey& pk);
  // Size of the .params file with these counts.
  uint64_t FileBytes() const;
  bool operator==(const ParamsShape&) const = default;
};

struct ParamsReadOptions {
  std::optional<ParamsShape> expected{};  // check every count against it
  bool check_subgroup = false;            // h, l, a, b_g1, b_g2 (the VK is always checked)
  unsigned threads = 0;                   // point decoding, 0 = all hardware threads
};

inline constexpr size_t kVerifyingKeyFixedBytes = 3 * 96 + 3 * 192;  // before ic_len

std::vector<uint8_t> SerializeVerifyingKey(const VerifyingKey& vk);
void WriteVerifyingKey(const VerifyingKey& vk, const std::string& path);
// name: the file name for messages. expected_ic: the number of IC points the
// caller needs (public inputs + 1), if known.
VerifyingKey ParseVerifyingKey(std::span<const uint8_t> bytes, const std::string& name,
                               std::optional<uint64_t> expected_ic = std::nullopt);
VerifyingKey ReadVerifyingKey(const std::string& path, std::optional<uint64_t> expected_ic = std::nullopt);

// Writes a bellperson-form key (std::invalid_argument for the snarkjs form,
// which has no .params layout). Points are encoded on `threads` threads and
// written through a buffer; I/O errors throw std::system_error and remove
// the partial file.
void WriteParams(const ProvingKey& pk, const std::string& path, unsigned threads = 0);
std::vector<uint8_t> SerializeParams(const ProvingKey& pk, unsigned threads = 0);

// The key's densities stay empty: bind them with BindCircuit before proving.
ProvingKey ParseParams(std::span<const uint8_t> bytes, const std::string& name, const ParamsReadOptions& options = {});
ProvingKey ReadParams(const std::string& path, const ParamsReadOptions& options = {});

// Checks the key's counts against the circuit (ParamsError, section "shape")
// and copies the circuit's densities into it.
void BindCircuit(ProvingKey& pk, const r1cs::CompiledCircuit& circuit);

// ReadParams with expected = ParamsShape::ForCircuit(circuit), then BindCircuit.
ProvingKey ReadParamsForCircuit(const std::string& path, const r1cs::CompiledCircuit& circuit,
                                ParamsReadOptions options = {});

}  // namespace cuzk::groth16
