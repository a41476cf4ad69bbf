#include "engine/circuits/snarkjs/r1cs_file.hpp"

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/field_codec.hpp"

namespace cuzk::snarkjs {

namespace {

constexpr uint32_t kHeaderSection = 1;
constexpr uint32_t kConstraintsSection = 2;
constexpr uint32_t kWireToLabelSection = 3;
constexpr uint32_t kCustomGatesListSection = 4;
constexpr uint32_t kCustomGatesUsesSection = 5;

// Names for primes circom knows, for the "wrong prime" message.
std::string DescribePrime(std::span<const uint8_t> le) {
  std::string dec;
  if (le.size() <= 48) {
    std::vector<uint8_t> padded(le.begin(), le.end());
    padded.resize(48, 0);
    dec = LimbsToDecimal<6>(LimbsFromLE<6>(padded));
  } else {
    dec = "(a " + std::to_string(le.size() * 8) + "-bit number)";
  }
  if (dec == "21888242871839275222246405745257275088548364400416034343698204186575808495617") {
    return dec + " (bn128's scalar field, circom's default --prime)";
  }
  if (dec == "18446744069414584321") return dec + " (goldilocks)";
  return dec;
}

void ReadLinearCombination(ByteReader& r, const R1csFile& f, uint32_t constraint, const char* which,
                           r1cs::CsrMatrix& m) {
  std::string what = std::string("constraint ") + std::to_string(constraint) + " " + which;
  uint32_t n_terms = r.U32(what + " term count");
  // 36 bytes per term: a count the section cannot hold is rejected before any
  // allocation grows with it.
  if (uint64_t(n_terms) * (4 + kFrBytes) > r.remaining()) {
    throw FormatError(r.context() + ": " + what + " claims " + std::to_string(n_terms) + " terms but only " +
                      std::to_string(r.remaining()) + " bytes remain (truncated?)");
  }
  for (uint32_t t = 0; t < n_terms; ++t) {
    uint32_t wire = r.U32(what);
    auto coef_bytes = r.Bytes(kFrBytes, what);
    if (wire >= f.n_wires) {
      throw FormatError(r.context() + ": " + what + " term " + std::to_string(t) + " uses wire " +
                        std::to_string(wire) + " but the header declares " + std::to_string(f.n_wires) + " wires");
    }
    auto coef = FrFromCanonicalLE(coef_bytes);
    if (!coef) {
      throw FormatError(r.context() + ": " + what + " term " + std::to_string(t) +
                        " has a coefficient >= the BLS12-381 scalar field modulus");
    }
    if (coef->IsZero()) continue;
    m.columns.push_back(wire);
    m.values.push_back(*coef);
  }
  m.row_offsets.push_back(m.columns.size());
}

}  // namespace

R1csFile ParseR1cs(std::span<const uint8_t> bytes, const std::string& name) {
  BinFile bin(bytes, name, "r1cs", 1);
  if (bin.Has(kCustomGatesListSection) || bin.Has(kCustomGatesUsesSection)) {
    throw FormatError(name + ": the circuit uses custom gates (circom --plonk only); Groth16 cannot prove it");
  }
  R1csFile f;

  ByteReader h = bin.Reader(kHeaderSection, "header");
  uint32_t n8 = h.U32("field size n8");
  if (n8 == 0 || n8 > 1024) throw FormatError(h.context() + ": implausible field size n8 = " + std::to_string(n8));
  auto prime = h.Bytes(n8, "prime");
  bool prime_ok = n8 == kFrBytes && LimbsFromLE<4>(prime) == ff::Fr::kModulus;
  if (!prime_ok) {
    throw FormatError(name + ": the circuit is over the prime " + DescribePrime(prime) +
                      ", not the BLS12-381 scalar field (compile it with circom --prime bls12381)");
  }
  f.n_wires = h.U32("nWires");
  f.n_pub_outputs = h.U32("nPubOut");
  f.n_pub_inputs = h.U32("nPubIn");
  f.n_prv_inputs = h.U32("nPrvIn");
  f.n_labels = h.U64("nLabels");
  uint32_t n_constraints = h.U32("nConstraints");
  h.ExpectEnd();
  uint64_t named = 1ull + f.n_pub_outputs + f.n_pub_inputs + f.n_prv_inputs;
  if (f.n_wires == 0 || named > f.n_wires) {
    throw FormatError(h.context() + ": inconsistent counts: 1 + nPubOut (" + std::to_string(f.n_pub_outputs) +
                      ") + nPubIn (" + std::to_string(f.n_pub_inputs) + ") + nPrvIn (" +
                      std::to_string(f.n_prv_inputs) + ") exceeds nWires (" + std::to_string(f.n_wires) + ")");
  }

  r1cs::CompiledCircuit& cs = f.circuit;
  cs.num_inputs = 1ull + f.n_pub_outputs + f.n_pub_inputs;
  cs.num_aux = f.n_wires - cs.num_inputs;

  ByteReader c = bin.Reader(kConstraintsSection, "constraints");
  // Three term counts per constraint at least.
  if (uint64_t(n_constraints) * 12 > c.remaining()) {
    throw FormatError(c.context() + ": the header declares " + std::to_string(n_constraints) +
                      " constraints but the section has only " + std::to_string(c.remaining()) + " bytes");
  }
  for (auto* m : {&cs.a, &cs.b, &cs.c}) m->row_offsets.reserve(size_t(n_constraints) + 1);
  for (uint32_t i = 0; i < n_constraints; ++i) {
    ReadLinearCombination(c, f, i, "A", cs.a);
    ReadLinearCombination(c, f, i, "B", cs.b);
    ReadLinearCombination(c, f, i, "C", cs.c);
  }
  c.ExpectEnd();

  // nWires is a number in the header; the wire-to-label map (8 bytes a wire,
  // which circom always writes) is what ties it to the file's size. Without
  // it a 150-byte file could claim 2^32 wires and cost gigabytes (the
  // densities, 2 bits a wire) before any other check could refuse it
  // (found by tests/fuzz/fuzz_r1cs).
  if (!bin.Has(kWireToLabelSection)) {
    throw FormatError(name + ": no wire-to-label map (section 3), which circom always writes; the header's nWires (" +
                      std::to_string(f.n_wires) + ") is not backed by the file");
  }

  {
    ByteReader m = bin.Reader(kWireToLabelSection, "wire to label map");
    if (m.remaining() != uint64_t(f.n_wires) * 8) {
      throw FormatError(m.context() + ": " + std::to_string(m.remaining()) +
                        " bytes, expected 8 * nWires = " + std::to_string(uint64_t(f.n_wires) * 8));
    }
    f.wire_to_label.resize(f.n_wires);
    for (uint32_t w = 0; w < f.n_wires; ++w) {
      f.wire_to_label[w] = m.U64("label");
      if (f.wire_to_label[w] >= f.n_labels) {
        throw FormatError(m.context() + ": wire " + std::to_string(w) + " maps to label " +
                          std::to_string(f.wire_to_label[w]) + " but nLabels is " + std::to_string(f.n_labels));
      }
    }
  }
  r1cs::ComputeDensities(cs);
  return f;
}

R1csFile ReadR1cs(const std::string& path) {
  util::MappedFile file = MapInputFile(path);
  return ParseR1cs(file.bytes(), path);
}

std::vector<uint8_t> SerializeR1cs(const R1csFile& f) {
  const r1cs::CompiledCircuit& cs = f.circuit;
  std::vector<uint8_t> header;
  AppendU32(header, uint32_t(kFrBytes));
  uint8_t prime[kFrBytes];
  LimbsToLE<4>(ff::Fr::kModulus, prime);
  header.insert(header.end(), prime, prime + kFrBytes);
  AppendU32(header, f.n_wires);
  AppendU32(header, f.n_pub_outputs);
  AppendU32(header, f.n_pub_inputs);
  AppendU32(header, f.n_prv_inputs);
  AppendU64(header, f.n_labels);
  AppendU32(header, uint32_t(cs.num_constraints()));

  std::vector<uint8_t> constraints;
  uint8_t coef[kFrBytes];
  for (size_t row = 0; row < cs.num_constraints(); ++row) {
    for (const r1cs::CsrMatrix* m : {&cs.a, &cs.b, &cs.c}) {
      uint64_t begin = m->row_offsets[row], end = m->row_offsets[row + 1];
      AppendU32(constraints, uint32_t(end - begin));
      for (uint64_t k = begin; k < end; ++k) {
        AppendU32(constraints, m->columns[k]);
        m->values[k].ToBytes(coef, ff::Endian::kLittle);
        constraints.insert(constraints.end(), coef, coef + kFrBytes);
      }
    }
  }

  bool with_map = !f.wire_to_label.empty();
  std::vector<uint8_t> out = BeginBinFile("r1cs", 1, with_map ? 3 : 2);
  // circom's order (constraints before the header), so that the bytes match its files.
  AppendSection(out, kConstraintsSection, constraints);
  AppendSection(out, kHeaderSection, header);
  if (with_map) {
    std::vector<uint8_t> map;
    for (uint64_t label : f.wire_to_label) AppendU64(map, label);
    AppendSection(out, kWireToLabelSection, map);
  }
  return out;
}

}  // namespace cuzk::snarkjs
