#include "engine/circuits/snarkjs/json_io.hpp"

#include <nlohmann/json.hpp>

#include "engine/circuits/snarkjs/field_codec.hpp"
#include "engine/circuits/snarkjs/format_error.hpp"
#include "engine/ec/encoding.hpp"
#include "engine/ec/pairing.hpp"

namespace cuzk::snarkjs {

namespace {

using OrderedJson = nlohmann::ordered_json;
using Json = nlohmann::json;

// bfj {space: 1} == JSON.stringify(v, null, 1) == nlohmann's dump(1) for non-empty
// objects, arrays and ASCII strings (checked byte for byte against snarkjs's
// files in tests/engine/snarkjs_interop_test.cpp).
std::string Dump(const OrderedJson& j) { return j.dump(1); }

OrderedJson G1ToJson(const ec::G1Affine& p) {
  // ffjavascript's G1.toObject: infinity is [0, 1, 0].
  if (p.IsInfinity()) return OrderedJson::array({"0", "1", "0"});
  return OrderedJson::array({ToDecimal(p.x), ToDecimal(p.y), "1"});
}

OrderedJson Fp2ToJson(const ff::Fp2& f) { return OrderedJson::array({ToDecimal(f.c0), ToDecimal(f.c1)}); }

OrderedJson G2ToJson(const ec::G2Affine& p) {
  if (p.IsInfinity()) {
    return OrderedJson::array({Fp2ToJson(ff::Fp2::Zero()), Fp2ToJson(ff::Fp2::One()), Fp2ToJson(ff::Fp2::Zero())});
  }
  return OrderedJson::array({Fp2ToJson(p.x), Fp2ToJson(p.y), Fp2ToJson(ff::Fp2::One())});
}

OrderedJson Fp6ToJson(const ff::Fp6& f) {
  return OrderedJson::array({Fp2ToJson(f.c0), Fp2ToJson(f.c1), Fp2ToJson(f.c2)});
}

// ---- reading ----------------------------------------------------------------

Json ParseText(std::string_view text, const std::string& name) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw FormatError(name + ": not valid JSON (" + e.what() + ")");
  }
}

const Json& Field(const Json& obj, std::string_view key, const std::string& where) {
  auto it = obj.find(std::string(key));
  if (it == obj.end()) throw FormatError(where + ": missing field \"" + std::string(key) + "\"");
  return *it;
}

const Json& ExpectArray(const Json& j, const std::string& where, size_t min_size, size_t max_size) {
  if (!j.is_array()) throw FormatError(where + ": expected an array, found " + std::string(j.type_name()));
  if (j.size() < min_size || j.size() > max_size) {
    throw FormatError(where + ": expected " +
                      (min_size == max_size ? std::to_string(min_size)
                                            : std::to_string(min_size) + " to " + std::to_string(max_size)) +
                      " elements, found " + std::to_string(j.size()));
  }
  return j;
}

// A value for an error message: long ones are cut (a file may hold megabytes in one string).
std::string Abbrev(const std::string& s) {
  if (s.size() <= 48) return s;
  return s.substr(0, 40) + "... (" + std::to_string(s.size()) + " characters)";
}

template <size_t N>
ff::Limbs<N> DecimalLimbs(const Json& j, const std::string& where) {
  if (!j.is_string()) {
    throw FormatError(where + ": expected a decimal string, found " + std::string(j.type_name()));
  }
  const std::string& s = j.get_ref<const std::string&>();
  auto v = LimbsFromDecimal<N>(s);
  if (!v) {
    // Digits only but too many for N limbs is a value problem, not a syntax one.
    bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
    if (digits) {
      throw FormatError(ErrorKind::kInvalidValue, where + ": " + Abbrev(s) + " is not a field element (too large)");
    }
    throw FormatError(where + ": \"" + Abbrev(s) + "\" is not a non-negative decimal integer");
  }
  return *v;
}

template <class F>
F ParseField(const Json& j, const std::string& where, const char* field_name) {
  auto limbs = DecimalLimbs<F::kLimbs>(j, where);
  auto f = F::FromCanonicalChecked(limbs);
  if (!f) {
    throw FormatError(ErrorKind::kInvalidValue,
                      where + ": " + j.get<std::string>() + " is not less than the " + field_name + " modulus");
  }
  return *f;
}

ff::Fp ParseFp(const Json& j, const std::string& where) { return ParseField<ff::Fp>(j, where, "BLS12-381 base field"); }

ff::Fp2 ParseFp2(const Json& j, const std::string& where) {
  ExpectArray(j, where, 2, 2);
  return {ParseFp(j[0], where + "[0]"), ParseFp(j[1], where + "[1]")};
}

// Only affine (z = 1) and infinity (z = 0) are accepted: snarkjs writes
// nothing else, and a general Jacobian z would be a second encoding of the
// same point.
bool ParseZIsInfinity(const Json& j, const std::string& where, bool g2) {
  std::string w = where + "[2]";
  if (g2) {
    ExpectArray(j, w, 2, 2);
    ff::Fp2 z = ParseFp2(j, w);
    if (z.IsOne()) return false;
    if (z.IsZero()) return true;
  } else {
    ff::Fp z = ParseFp(j, w);
    if (z.IsOne()) return false;
    if (z.IsZero()) return true;
  }
  throw FormatError(w + ": only affine points are supported (z must be 1, or 0 for infinity)");
}

template <class Affine>
void CheckPoint(const Affine& p, const std::string& where, bool allow_infinity, ErrorKind kind) {
  if (p.IsInfinity()) {
    if (!allow_infinity) throw FormatError(kind, where + ": the point at infinity is not allowed here");
    return;
  }
  if (!p.IsOnCurve()) throw FormatError(kind, where + ": the point is not on the curve");
  bool in_subgroup;
  if constexpr (std::is_same_v<Affine, ec::G1Affine>) {
    in_subgroup = ec::IsInG1Subgroup(p);
  } else {
    in_subgroup = ec::IsInG2Subgroup(p);
  }
  if (!in_subgroup) throw FormatError(kind, where + ": the point is not in the prime-order subgroup");
}

// Value errors (coordinate >= p, off curve, ...) are reported with
// `point_kind`; structural errors stay kMalformed.
ec::G1Affine ParseG1(const Json& j, const std::string& where, bool allow_infinity, ErrorKind point_kind) {
  try {
    ExpectArray(j, where, 2, 3);
    bool inf = j.size() == 3 && ParseZIsInfinity(j[2], where, false);
    ff::Fp x = ParseFp(j[0], where + "[0]"), y = ParseFp(j[1], where + "[1]");
    ec::G1Affine p = inf ? ec::G1Affine::Infinity() : ec::G1Affine::FromXY(x, y);
    CheckPoint(p, where, allow_infinity, point_kind);
    return p;
  } catch (const FormatError& e) {
    if (e.kind() == ErrorKind::kInvalidValue && point_kind != ErrorKind::kInvalidValue) {
      throw FormatError(point_kind, e.what());
    }
    throw;
  }
}

ec::G2Affine ParseG2(const Json& j, const std::string& where, bool allow_infinity, ErrorKind point_kind) {
  try {
    ExpectArray(j, where, 2, 3);
    bool inf = j.size() == 3 && ParseZIsInfinity(j[2], where, true);
    ff::Fp2 x = ParseFp2(j[0], where + "[0]"), y = ParseFp2(j[1], where + "[1]");
    ec::G2Affine p = inf ? ec::G2Affine::Infinity() : ec::G2Affine::FromXY(x, y);
    CheckPoint(p, where, allow_infinity, point_kind);
    return p;
  } catch (const FormatError& e) {
    if (e.kind() == ErrorKind::kInvalidValue && point_kind != ErrorKind::kInvalidValue) {
      throw FormatError(point_kind, e.what());
    }
    throw;
  }
}

void ExpectString(const Json& obj, std::string_view key, std::string_view expected, const std::string& name,
                  bool required) {
  auto it = obj.find(std::string(key));
  if (it == obj.end()) {
    if (required) throw FormatError(name + ": missing field \"" + std::string(key) + "\"");
    return;
  }
  if (!it->is_string() || it->get_ref<const std::string&>() != expected) {
    std::string got = Abbrev(it->is_string() ? it->get<std::string>() : it->dump());
    throw FormatError(name + ": " + std::string(key) + " is \"" + got + "\", only \"" + std::string(expected) +
                      "\" is supported");
  }
}

}  // namespace

std::string ProofToJson(const groth16::Proof& proof) {
  OrderedJson j;
  j["pi_a"] = G1ToJson(proof.a);
  j["pi_b"] = G2ToJson(proof.b);
  j["pi_c"] = G1ToJson(proof.c);
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  return Dump(j);
}

std::string PublicSignalsToJson(std::span<const ff::Fr> signals) {
  // bfj breaks the line even inside an empty array (JSON.stringify would write "[]").
  if (signals.empty()) return "[\n]";
  OrderedJson j = OrderedJson::array();
  for (const auto& s : signals) j.push_back(ToDecimal(s));
  return Dump(j);
}

std::string VerifyingKeyToJson(const groth16::VerifyingKey& vk) {
  if (vk.ic.empty()) throw std::invalid_argument("VerifyingKeyToJson: the key has no IC points");
  ff::Fp12 alphabeta = ec::Pairing(vk.alpha_g1, vk.beta_g2);
  OrderedJson j;
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  j["nPublic"] = vk.ic.size() - 1;
  j["vk_alpha_1"] = G1ToJson(vk.alpha_g1);
  j["vk_beta_2"] = G2ToJson(vk.beta_g2);
  j["vk_gamma_2"] = G2ToJson(vk.gamma_g2);
  j["vk_delta_2"] = G2ToJson(vk.delta_g2);
  j["vk_alphabeta_12"] = OrderedJson::array({Fp6ToJson(alphabeta.c0), Fp6ToJson(alphabeta.c1)});
  OrderedJson ic = OrderedJson::array();
  for (const auto& p : vk.ic) ic.push_back(G1ToJson(p));
  j["IC"] = std::move(ic);
  return Dump(j);
}

groth16::Proof ParseProofJson(std::string_view text, const std::string& name) {
  Json j = ParseText(text, name);
  if (!j.is_object()) throw FormatError(name + ": expected a JSON object with pi_a, pi_b, pi_c");
  ExpectString(j, "protocol", "groth16", name, false);
  ExpectString(j, "curve", "bls12381", name, false);
  groth16::Proof p;
  const auto kind = ErrorKind::kInvalidValue;
  p.a = ParseG1(Field(j, "pi_a", name), name + ": pi_a", false, kind);
  p.b = ParseG2(Field(j, "pi_b", name), name + ": pi_b", false, kind);
  p.c = ParseG1(Field(j, "pi_c", name), name + ": pi_c", false, kind);
  return p;
}

std::vector<ff::Fr> ParsePublicSignalsJson(std::string_view text, const std::string& name) {
  Json j = ParseText(text, name);
  if (!j.is_array()) throw FormatError(name + ": expected a JSON array of decimal strings");
  std::vector<ff::Fr> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(ParseField<ff::Fr>(j[i], name + ": [" + std::to_string(i) + "]", "BLS12-381 scalar field"));
  }
  return out;
}

groth16::VerifyingKey ParseVerifyingKeyJson(std::string_view text, const std::string& name) {
  Json j = ParseText(text, name);
  if (!j.is_object()) throw FormatError(name + ": expected a JSON object (a snarkjs verification key)");
  ExpectString(j, "protocol", "groth16", name, true);
  ExpectString(j, "curve", "bls12381", name, true);
  const Json& n_public = Field(j, "nPublic", name);
  if (!n_public.is_number_unsigned()) throw FormatError(name + ": nPublic is not a non-negative integer");
  const Json& ic = Field(j, "IC", name);
  if (!ic.is_array() || ic.size() != n_public.get<uint64_t>() + 1) {
    throw FormatError(name + ": IC must hold nPublic + 1 = " + std::to_string(n_public.get<uint64_t>() + 1) +
                      " points" + (ic.is_array() ? ", found " + std::to_string(ic.size()) : ""));
  }
  const auto kind = ErrorKind::kMalformed;
  groth16::VerifyingKey vk;
  vk.alpha_g1 = ParseG1(Field(j, "vk_alpha_1", name), name + ": vk_alpha_1", false, kind);
  vk.beta_g2 = ParseG2(Field(j, "vk_beta_2", name), name + ": vk_beta_2", false, kind);
  vk.gamma_g2 = ParseG2(Field(j, "vk_gamma_2", name), name + ": vk_gamma_2", false, kind);
  vk.delta_g2 = ParseG2(Field(j, "vk_delta_2", name), name + ": vk_delta_2", false, kind);
  vk.ic.reserve(ic.size());
  for (size_t i = 0; i < ic.size(); ++i) {
    vk.ic.push_back(ParseG1(ic[i], name + ": IC[" + std::to_string(i) + "]", true, kind));
  }
  return vk;
}

}  // namespace cuzk::snarkjs
