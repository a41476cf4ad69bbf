#include "engine/circuits/snarkjs/wtns_file.hpp"

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/field_codec.hpp"

namespace cuzk::snarkjs {

namespace {
constexpr uint32_t kHeaderSection = 1;
constexpr uint32_t kValuesSection = 2;
}  // namespace

std::vector<ff::Fr> ParseWtns(std::span<const uint8_t> bytes, const std::string& name) {
  BinFile bin(bytes, name, "wtns", 2);
  ByteReader h = bin.Reader(kHeaderSection, "header");
  uint32_t n8 = h.U32("field size n8");
  if (n8 == 0 || n8 > 1024) throw FormatError(h.context() + ": implausible field size n8 = " + std::to_string(n8));
  auto prime = h.Bytes(n8, "prime");
  if (n8 != kFrBytes || LimbsFromLE<4>(prime) != ff::Fr::kModulus) {
    throw FormatError(name + ": the witness is not over the BLS12-381 scalar field (n8 = " + std::to_string(n8) +
                      "; was the circuit compiled with circom --prime bls12381?)");
  }
  uint32_t n = h.U32("nWitness");
  h.ExpectEnd();

  ByteReader v = bin.Reader(kValuesSection, "values");
  if (v.remaining() != uint64_t(n) * kFrBytes) {
    throw FormatError(v.context() + ": " + std::to_string(v.remaining()) + " bytes, expected nWitness (" +
                      std::to_string(n) + ") x 32 = " + std::to_string(uint64_t(n) * kFrBytes));
  }
  std::vector<ff::Fr> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    auto x = FrFromCanonicalLE(v.Bytes(kFrBytes, "value"));
    if (!x) {
      throw FormatError(ErrorKind::kInvalidValue,
                        v.context() + ": value " + std::to_string(i) + " is >= the BLS12-381 scalar field modulus");
    }
    out[i] = *x;
  }
  return out;
}

std::vector<ff::Fr> ReadWtns(const std::string& path) {
  util::MappedFile file = MapInputFile(path);
  return ParseWtns(file.bytes(), path);
}

std::vector<uint8_t> SerializeWtns(std::span<const ff::Fr> witness) {
  std::vector<uint8_t> header;
  AppendU32(header, uint32_t(kFrBytes));
  uint8_t buf[kFrBytes];
  LimbsToLE<4>(ff::Fr::kModulus, buf);
  header.insert(header.end(), buf, buf + kFrBytes);
  AppendU32(header, uint32_t(witness.size()));
  std::vector<uint8_t> values;
  values.reserve(witness.size() * kFrBytes);
  for (const auto& x : witness) {
    x.ToBytes(buf, ff::Endian::kLittle);
    values.insert(values.end(), buf, buf + kFrBytes);
  }
  std::vector<uint8_t> out = BeginBinFile("wtns", 2, 2);
  AppendSection(out, kHeaderSection, header);
  AppendSection(out, kValuesSection, values);
  return out;
}

void WriteWtns(const std::string& path, std::span<const ff::Fr> witness) {
  WriteFileBytes(path, SerializeWtns(witness));
}

}  // namespace cuzk::snarkjs
