#include "engine/circuits/snarkjs/zkey_file.hpp"

#include <algorithm>
#include <mutex>
#include <tuple>

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/field_codec.hpp"
#include "engine/circuits/snarkjs/r1cs_file.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::snarkjs {

namespace {

constexpr uint32_t kProtocolSection = 1;
constexpr uint32_t kGroth16HeaderSection = 2;
constexpr uint32_t kIcSection = 3;
constexpr uint32_t kCoefsSection = 4;
constexpr uint32_t kPointsASection = 5;
constexpr uint32_t kPointsB1Section = 6;
constexpr uint32_t kPointsB2Section = 7;
constexpr uint32_t kPointsCSection = 8;
constexpr uint32_t kPointsHSection = 9;

constexpr uint32_t kGroth16Protocol = 1;
constexpr size_t kCoefBytes = 12 + kFrBytes;

std::string ProtocolName(uint32_t id) {
  switch (id) {
    case 1: return "groth16";
    case 2: return "plonk";
    case 10: return "fflonk";
    default: return "unknown";
  }
}

[[noreturn]] void ThrowPoint(const std::string& where, PointError e) {
  throw FormatError(ErrorKind::kInvalidValue, where + ": " + std::string(PointErrorMessage(e)));
}

ec::G1Affine ReadG1(ByteReader& r, const char* what, bool allow_infinity) {
  ec::G1Affine p;
  PointError e = G1FromLem(r.Bytes(kG1LemBytes, what), /*check_subgroup=*/true, p);
  if (e != PointError::kOk) ThrowPoint(r.context() + ": " + what, e);
  if (!allow_infinity && p.IsInfinity()) {
    throw FormatError(ErrorKind::kInvalidValue, r.context() + ": " + what + " is the point at infinity");
  }
  return p;
}

ec::G2Affine ReadG2(ByteReader& r, const char* what, bool allow_infinity) {
  ec::G2Affine p;
  PointError e = G2FromLem(r.Bytes(kG2LemBytes, what), /*check_subgroup=*/true, p);
  if (e != PointError::kOk) ThrowPoint(r.context() + ": " + what, e);
  if (!allow_infinity && p.IsInfinity()) {
    throw FormatError(ErrorKind::kInvalidValue, r.context() + ": " + what + " is the point at infinity");
  }
  return p;
}

// Checks the section length first, then decodes every point on `threads`
// threads; the reported error is the lowest failing index.
template <class Affine, class Decode>
util::OverwriteVector<Affine> DecodeSection(const BinFile& bin, uint32_t type, const char* what, uint64_t count,
                                            size_t point_bytes, bool check_subgroup, unsigned threads, Decode decode) {
  std::span<const uint8_t> data = bin.Section(type, what);
  std::string context = bin.name() + ": section " + std::to_string(type) + " (" + what + ")";
  if (data.size() != count * point_bytes) {
    throw FormatError(context + ": " + std::to_string(data.size()) + " bytes, expected " + std::to_string(count) +
                      " points x " + std::to_string(point_bytes) + " = " + std::to_string(count * point_bytes));
  }
  util::OverwriteVector<Affine> out(count);  // every point decoded into it below (or the section refused)
  std::mutex mu;
  size_t bad_index = SIZE_MAX;
  PointError bad_error = PointError::kOk;
  util::ParallelForChunks(count, threads, [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end; ++i) {
      PointError e = decode(data.subspan(i * point_bytes, point_bytes), check_subgroup, out[i]);
      if (e != PointError::kOk) {
        std::lock_guard<std::mutex> lock(mu);
        if (i < bad_index) bad_index = i, bad_error = e;
        return;
      }
    }
  });
  if (bad_index != SIZE_MAX) ThrowPoint(context + ": point " + std::to_string(bad_index), bad_error);
  return out;
}

groth16::G1Points DecodeG1Section(const BinFile& bin, uint32_t type, const char* what, uint64_t count,
                                  const ZkeyReadOptions& o) {
  return DecodeSection<ec::G1Affine>(bin, type, what, count, kG1LemBytes, o.check_subgroup, o.threads, G1FromLem);
}

groth16::G2Points DecodeG2Section(const BinFile& bin, uint32_t type, const char* what, uint64_t count,
                                  const ZkeyReadOptions& o) {
  return DecodeSection<ec::G2Affine>(bin, type, what, count, kG2LemBytes, o.check_subgroup, o.threads, G2FromLem);
}

// Keeps the non-infinity points and records which variables they belong to.
template <class Points>
void Compact(Points& all, msm::DensityBitmap& density) {
  density = msm::DensityBitmap(all.size());
  size_t kept = 0;
  for (size_t v = 0; v < all.size(); ++v) {
    if (all[v].IsInfinity()) continue;
    density.Set(v);
    all[kept++] = all[v];
  }
  all.resize(kept);
  all.shrink_to_fit();
}

}  // namespace

ZkeyFile ParseZkey(std::span<const uint8_t> bytes, const std::string& name, const ZkeyReadOptions& options) {
  BinFile bin(bytes, name, "zkey", 1);
  ZkeyFile z;

  ByteReader p = bin.Reader(kProtocolSection, "protocol");
  uint32_t protocol = p.U32("protocol id");
  p.ExpectEnd();
  if (protocol != kGroth16Protocol) {
    throw FormatError(name + ": the zkey is for protocol " + std::to_string(protocol) + " (" + ProtocolName(protocol) +
                      "), not Groth16");
  }

  ByteReader h = bin.Reader(kGroth16HeaderSection, "groth16 header");
  uint32_t n8q = h.U32("n8q");
  if (n8q != kFpBytes) {
    throw FormatError(h.context() + ": base field size n8q = " + std::to_string(n8q) +
                      ", expected 48 (BLS12-381; is this a bn128 zkey?)");
  }
  if (LimbsFromLE<6>(h.Bytes(kFpBytes, "q")) != ff::Fp::kModulus) {
    throw FormatError(h.context() + ": the base field prime q is not BLS12-381's");
  }
  uint32_t n8r = h.U32("n8r");
  if (n8r != kFrBytes) {
    throw FormatError(h.context() + ": scalar field size n8r = " + std::to_string(n8r) + ", expected 32");
  }
  if (LimbsFromLE<4>(h.Bytes(kFrBytes, "r")) != ff::Fr::kModulus) {
    throw FormatError(h.context() + ": the scalar field prime r is not BLS12-381's");
  }
  z.n_vars = h.U32("nVars");
  z.n_public = h.U32("nPublic");
  z.domain_size = h.U32("domainSize");
  if (uint64_t(z.n_public) + 1 > z.n_vars) {
    throw FormatError(h.context() + ": nPublic (" + std::to_string(z.n_public) + ") + 1 exceeds nVars (" +
                      std::to_string(z.n_vars) + ")");
  }
  if (z.domain_size == 0 || (z.domain_size & (z.domain_size - 1)) != 0 || z.domain_size < z.n_public + 1u) {
    throw FormatError(h.context() + ": domainSize " + std::to_string(z.domain_size) +
                      " is not a power of two holding the " + std::to_string(z.n_public + 1) + " public rows");
  }
  groth16::VerifyingKey& vk = z.pk.vk;
  vk.alpha_g1 = ReadG1(h, "alpha1", false);
  vk.beta_g1 = ReadG1(h, "beta1", false);
  vk.beta_g2 = ReadG2(h, "beta2", false);
  vk.gamma_g2 = ReadG2(h, "gamma2", false);
  vk.delta_g1 = ReadG1(h, "delta1", false);
  vk.delta_g2 = ReadG2(h, "delta2", false);
  h.ExpectEnd();

  ByteReader ic = bin.Reader(kIcSection, "IC");
  if (ic.remaining() != uint64_t(z.n_public + 1) * kG1LemBytes) {
    throw FormatError(ic.context() + ": " + std::to_string(ic.remaining()) + " bytes, expected (nPublic + 1) x 96 = " +
                      std::to_string(uint64_t(z.n_public + 1) * kG1LemBytes));
  }
  vk.ic.resize(z.n_public + 1);
  for (auto& pt : vk.ic) pt = ReadG1(ic, "IC point", true);

  ByteReader c = bin.Reader(kCoefsSection, "coefs");
  uint32_t n_coefs = c.U32("coefficient count");
  if (c.remaining() != uint64_t(n_coefs) * kCoefBytes) {
    throw FormatError(c.context() + ": " + std::to_string(c.remaining()) + " bytes after the count, expected " +
                      std::to_string(n_coefs) + " x 44 = " + std::to_string(uint64_t(n_coefs) * kCoefBytes));
  }
  // v R^2 -> v: FromMontgomery(x) is x / R, and kRInv = FromMontgomery(1) is 1 / R.
  const ff::Fr r_inv = ff::Fr::FromMontgomery(ff::Limbs<4>{1, 0, 0, 0});
  z.coefficients.resize(n_coefs);
  for (uint32_t i = 0; i < n_coefs; ++i) {
    ZkeyCoefficient& k = z.coefficients[i];
    k.matrix = c.U32("matrix");
    k.constraint = c.U32("constraint");
    k.signal = c.U32("signal");
    auto raw = LimbsFromLE<4>(c.Bytes(kFrBytes, "value"));
    std::string where = c.context() + ": coefficient " + std::to_string(i);
    if (k.matrix > 1) throw FormatError(where + " is for matrix " + std::to_string(k.matrix) + " (only A=0, B=1)");
    if (k.constraint >= z.domain_size) {
      throw FormatError(where + " is for constraint " + std::to_string(k.constraint) + ", outside the domain of " +
                        std::to_string(z.domain_size));
    }
    if (k.signal >= z.n_vars) {
      throw FormatError(where + " is for signal " + std::to_string(k.signal) + " but nVars is " +
                        std::to_string(z.n_vars));
    }
    if (ff::GreaterOrEqual(raw, ff::Fr::kModulus)) {
      throw FormatError(ErrorKind::kInvalidValue, where + " is >= the scalar field modulus");
    }
    k.value = ff::Fr::FromMontgomery(raw) * r_inv;
  }

  groth16::ProvingKey& pk = z.pk;
  pk.h_form = groth16::HQueryForm::kSnarkjsOddCoset;
  pk.a = DecodeG1Section(bin, kPointsASection, "A points", z.n_vars, options);
  auto b1 = DecodeG1Section(bin, kPointsB1Section, "B1 points", z.n_vars, options);
  auto b2 = DecodeG2Section(bin, kPointsB2Section, "B2 points", z.n_vars, options);
  for (uint32_t v = 0; v < z.n_vars; ++v) {
    if (b1[v].IsInfinity() != b2[v].IsInfinity()) {
      throw FormatError(ErrorKind::kInvalidValue, name + ": variable " + std::to_string(v) + " has a B1 point " +
                                                      (b1[v].IsInfinity() ? "at" : "not at") +
                                                      " infinity but a B2 point " +
                                                      (b2[v].IsInfinity() ? "at" : "not at") + " infinity");
    }
  }
  Compact(pk.a, pk.a_density);
  Compact(b1, pk.b_density);
  msm::DensityBitmap b2_density;
  Compact(b2, b2_density);
  pk.b_g1 = std::move(b1);
  pk.b_g2 = std::move(b2);
  pk.l = DecodeG1Section(bin, kPointsCSection, "C points", uint64_t(z.n_vars) - z.n_public - 1, options);
  pk.h = DecodeG1Section(bin, kPointsHSection, "H points", z.domain_size, options);
  return z;
}

ZkeyFile ReadZkey(const std::string& path, const ZkeyReadOptions& options) {
  util::MappedFile file = MapInputFile(path);
  return ParseZkey(file.bytes(), path, options);
}

namespace {

using CoefKey = std::tuple<uint32_t, uint32_t, uint32_t, ff::Limbs<4>>;  // constraint, matrix, signal, value

std::string FirstDensityDifference(const msm::DensityBitmap& zkey, const msm::DensityBitmap& r1cs) {
  for (size_t v = 0; v < zkey.size(); ++v) {
    if (zkey.Test(v) != r1cs.Test(v)) {
      return "variable " + std::to_string(v) +
             (zkey.Test(v) ? " has a point in the zkey but no entry in the r1cs"
                           : " has an entry in the r1cs but no point in the zkey");
    }
  }
  return "";
}

}  // namespace

void CheckZkeyMatchesR1cs(const ZkeyFile& z, const R1csFile& r) {
  const r1cs::CompiledCircuit& cs = r.circuit;
  const std::string prefix = "zkey does not match the r1cs: ";
  if (z.n_vars != r.n_wires) {
    throw FormatError(prefix + "nVars " + std::to_string(z.n_vars) + " vs " + std::to_string(r.n_wires) + " wires");
  }
  if (z.n_public != r.n_public()) {
    throw FormatError(prefix + "nPublic " + std::to_string(z.n_public) + " vs " + std::to_string(r.n_public()) +
                      " public signals");
  }
  uint64_t rows = cs.num_constraints() + r.n_public() + 1;
  if (z.domain_size < rows) {
    throw FormatError(prefix + "domainSize " + std::to_string(z.domain_size) + " cannot hold " + std::to_string(rows) +
                      " rows (constraints + public signals + 1)");
  }

  std::vector<CoefKey> expected;
  expected.reserve(cs.a.nonzeros() + cs.b.nonzeros() + r.n_public() + 1);
  for (size_t row = 0; row < cs.num_constraints(); ++row) {
    for (uint64_t k = cs.a.row_offsets[row]; k < cs.a.row_offsets[row + 1]; ++k) {
      expected.emplace_back(uint32_t(row), 0, cs.a.columns[k], cs.a.values[k].ToCanonical());
    }
    for (uint64_t k = cs.b.row_offsets[row]; k < cs.b.row_offsets[row + 1]; ++k) {
      expected.emplace_back(uint32_t(row), 1, cs.b.columns[k], cs.b.values[k].ToCanonical());
    }
  }
  for (uint32_t s = 0; s <= r.n_public(); ++s) {
    expected.emplace_back(uint32_t(cs.num_constraints() + s), 0, s, ff::Fr::One().ToCanonical());
  }
  std::vector<CoefKey> actual;
  actual.reserve(z.coefficients.size());
  for (const auto& k : z.coefficients) {
    // The r1cs reader drops zero terms; so does the comparison.
    if (!k.value.IsZero()) actual.emplace_back(k.constraint, k.matrix, k.signal, k.value.ToCanonical());
  }
  if (actual.size() != expected.size()) {
    throw FormatError(prefix + "the zkey has " + std::to_string(actual.size()) + " A/B coefficients, the r1cs " +
                      std::to_string(expected.size()) + " (with one per public signal)");
  }
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != expected[i]) {
      [[maybe_unused]] auto [row, matrix, signal, value] = std::min(actual[i], expected[i]);
      throw FormatError(prefix + "the " + (matrix ? "B" : "A") + " coefficients of constraint " + std::to_string(row) +
                        " differ (first at signal " + std::to_string(signal) + ")");
    }
  }

  if (auto d = FirstDensityDifference(z.pk.a_density, cs.a_density); !d.empty()) throw FormatError(prefix + "A: " + d);
  if (auto d = FirstDensityDifference(z.pk.b_density, cs.b_density); !d.empty()) throw FormatError(prefix + "B: " + d);
}

}  // namespace cuzk::snarkjs
