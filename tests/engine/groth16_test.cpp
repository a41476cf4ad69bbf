// engine/groth16: H computation (both layouts) against naive polynomial
// arithmetic, setup sections against their definitions, setup/prove/verify
// round trips, rejection of tampered proofs and inputs, unsatisfied
// witnesses, determinism for fixed r, s, batch proving and verification,
// proof encoding.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/ec/encoding.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/fixed_base.hpp"
#include "engine/groth16/h_polynomial.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/msm/msm.hpp"
#include "engine/r1cs/checking.hpp"
#include "engine/r1cs/record.hpp"
#include "engine/r1cs/witness.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::groth16 {
namespace {

using ec::G1Affine;
using ec::G1Jacobian;
using ec::G2Jacobian;
using ff::Fr;
using r1cs::LinearCombination;
using r1cs::Variable;
namespace synthetic = circuits::synthetic;

// ---- naive polynomial helpers (O(n^2), independent of engine/poly) ----------

std::vector<Fr> Interpolate(const std::vector<Fr>& values, const Fr& w) {
  const size_t n = values.size();
  const Fr w_inv = w.Inverse(), n_inv = Fr::FromUint64(n).Inverse();
  std::vector<Fr> coeffs(n);
  for (size_t i = 0; i < n; ++i) {
    Fr acc, step = w_inv.Pow(uint64_t(i)), x = Fr::One();
    for (size_t j = 0; j < n; ++j, x *= step) acc += values[j] * x;
    coeffs[i] = acc * n_inv;
  }
  return coeffs;
}

Fr EvalPoly(const std::vector<Fr>& c, const Fr& x) {
  Fr acc;
  for (size_t i = c.size(); i-- > 0;) acc = acc * x + c[i];
  return acc;
}

std::vector<Fr> MulPoly(const std::vector<Fr>& a, const std::vector<Fr>& b) {
  std::vector<Fr> r(a.size() + b.size() - 1);
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) r[i + j] += a[i] * b[j];
  return r;
}

// Random a, b and c = a*b on the first `rows` points, zero beyond (a
// satisfied R1CS padded to m).
void RandomAbc(size_t m, size_t rows, std::mt19937_64& rng, std::vector<Fr>& a, std::vector<Fr>& b,
               std::vector<Fr>& c) {
  a.assign(m, Fr());
  b.assign(m, Fr());
  c.assign(m, Fr());
  for (size_t i = 0; i < rows; ++i) {
    a[i] = Fr::Random(rng);
    b[i] = Fr::Random(rng);
    c[i] = a[i] * b[i];
  }
}

TEST(HPolynomial, BellpersonFormIsTheQuotientsCoefficients) {
  auto rng = test::SeededRng();
  for (size_t m : {1, 2, 8, 32}) {
    std::vector<Fr> a, b, c;
    RandomAbc(m, m - m / 4, rng, a, b, c);
    const Fr w = ff::FrRootOfUnity(unsigned(std::countr_zero(m)));
    std::vector<Fr> p = MulPoly(Interpolate(a, w), Interpolate(b, w));
    std::vector<Fr> pc = Interpolate(c, w);
    for (size_t i = 0; i < m; ++i) p[i] -= pc[i];
    // P = Q (X^m - 1): Q_i = P_{m+i}, and the low half is -Q.
    std::vector<Fr> h = ComputeHScalars(HQueryForm::kBellperson, a, b, c);
    ASSERT_EQ(h.size(), m - 1);
    for (size_t i = 0; i + 1 < m; ++i) {
      EXPECT_EQ(h[i], p[m + i]) << "m=" << m << " i=" << i;
      EXPECT_EQ(p[i], -p[m + i]);
    }
  }
}

TEST(HPolynomial, SnarkjsFormIsPOnTheOddCosetOfFfjavascriptsDomain) {
  // ffjavascript's 2^32-nd root: 5^((r-1)/2^32) (its Fr.w[32] for bls12381).
  const Fr w32 = DomainRootOfUnity(HQueryForm::kSnarkjsOddCoset, 32);
  EXPECT_EQ(w32, Fr::FromHex("0x212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"));
  EXPECT_EQ(ff::FrRootOfUnity(32).Pow(SnarkjsRootExponent()), w32);
  EXPECT_EQ(SnarkjsRootExponent() & 1, 1u);
  auto rng = test::SeededRng();
  for (size_t m : {1, 2, 16, 64}) {
    const unsigned log_m = unsigned(std::countr_zero(m));
    std::vector<Fr> a, b, c;
    RandomAbc(m, m, rng, a, b, c);
    c[m / 2] += Fr::One();  // P need not vanish on the domain for this identity
    const Fr w = DomainRootOfUnity(HQueryForm::kSnarkjsOddCoset, log_m);
    const Fr g = DomainRootOfUnity(HQueryForm::kSnarkjsOddCoset, log_m + 1);
    ASSERT_EQ(g.Square(), w);
    auto ca = Interpolate(a, w), cb = Interpolate(b, w), cc = Interpolate(c, w);
    std::vector<Fr> h = ComputeHScalars(HQueryForm::kSnarkjsOddCoset, a, b, c);
    ASSERT_EQ(h.size(), m);
    Fr x = g;
    for (size_t j = 0; j < m; ++j, x *= w) {
      EXPECT_EQ(h[j], EvalPoly(ca, x) * EvalPoly(cb, x) - EvalPoly(cc, x)) << "m=" << m << " j=" << j;
    }
  }
}

TEST(HPolynomial, RejectsBadSizes) {
  std::vector<Fr> a(6), b(6), c(6);
  EXPECT_THROW(ComputeHScalars(HQueryForm::kBellperson, a, b, c), std::invalid_argument);
  std::vector<Fr> d(8);
  EXPECT_THROW(ComputeHScalars(HQueryForm::kBellperson, d, b, c), std::invalid_argument);
}

// ---- circuits -------------------------------------------------------------

// Public inputs used in B and C (B-dense inputs), constants, a 300-term LC.
template <r1cs::ConstraintSystem CS>
void InputsEverywhere(CS& cs, const std::vector<Fr>& xs, bool break_it = false) {
  auto ns = r1cs::Namespace(cs, "inputs everywhere");
  std::vector<Variable> in;
  for (size_t i = 0; i < 3; ++i) {
    in.push_back(cs.AllocInput([i] { return "x" + std::to_string(i); }, [&, i] { return xs[i]; }));
  }
  // t = x0 * x1 (inputs in A and B), u = t * x2 + 7 (input in B, constant in C).
  Variable t = cs.Alloc("t", [&] { return cs.Value(in[0]) * cs.Value(in[1]); });
  cs.Enforce("x0 * x1 = t", in[0], in[1], t);
  Variable u = cs.Alloc("u", [&] { return cs.Value(t) * cs.Value(in[2]) + Fr::FromUint64(7); });
  cs.Enforce("t * x2 = u - 7", t, in[2], LinearCombination(u) - Fr::FromUint64(7) * Variable::One());
  // A 300-term LC of bits of u's neighbourhood.
  std::vector<Variable> bits;
  {
    auto nb = r1cs::Namespace(cs, "bits");
    for (int i = 0; i < 300; ++i) {
      Variable b =
          cs.Alloc([i] { return "b" + std::to_string(i); }, [&, i] { return Fr::FromUint64((i * 7 + 3) % 2); });
      cs.Enforce([i] { return "boolean " + std::to_string(i); }, b, LinearCombination(Variable::One()) - b,
                 LinearCombination());
      bits.push_back(b);
    }
  }
  Variable s = cs.Alloc("s", [&] {
    Fr acc = cs.Value(u);
    for (int i = 0; i < 300; ++i) acc += Fr::FromUint64(uint64_t(i) + 1) * cs.Value(bits[i]);
    return acc + (break_it ? Fr::One() : Fr());
  });
  cs.Enforce(
      "big lc",
      [&] {
        LinearCombination lc(u);
        for (int i = 0; i < 300; ++i) lc += Fr::FromUint64(uint64_t(i) + 1) * bits[i];
        return lc;
      },
      Variable::One(), s);
  Variable out = cs.AllocInput("out", [&] { return cs.Value(s) * cs.Value(in[0]); });
  cs.Enforce("out = s * x0", s, in[0], out);
}

struct Fixture {
  r1cs::CompiledCircuit circuit;
  ProvingKey pk;
  PreparedVerifyingKey pvk;
};

Fixture MakeSynthetic(const synthetic::SyntheticParams& p, HQueryForm form = HQueryForm::kBellperson) {
  Fixture f;
  f.circuit = synthetic::Record(p);
  f.pk = GenerateParameters(f.circuit, {.h_form = form});
  f.pvk = PrepareVerifyingKey(f.pk.vk);
  return f;
}

// ---- setup against the definitions ---------------------------------------------

Fr LagrangeNaive(size_t i, size_t m, const Fr& w, const Fr& x) {
  Fr num = Fr::One(), den = Fr::One();
  const Fr wi = w.Pow(uint64_t(i));
  for (size_t j = 0; j < m; ++j) {
    if (j == i) continue;
    Fr wj = w.Pow(uint64_t(j));
    num *= x - wj;
    den *= wi - wj;
  }
  return num * den.Inverse();
}

TEST(Setup, SectionsMatchTheirDefinitions) {
  auto rng = test::SeededRng();
  for (HQueryForm form : {HQueryForm::kBellperson, HQueryForm::kSnarkjsOddCoset}) {
    r1cs::RecordingCS cs;
    InputsEverywhere(cs, {});
    r1cs::CompiledCircuit c = std::move(cs).Finish();
    ToxicWaste t{Fr::Random(rng), Fr::Random(rng), Fr::Random(rng), Fr::Random(rng), Fr::Random(rng)};
    ProvingKey pk = GenerateParametersForTesting(c, t, {.h_form = form});
    const size_t m = std::bit_ceil(c.num_prover_rows());
    ASSERT_EQ(pk.domain_size(), m);
    const Fr w = DomainRootOfUnity(form, unsigned(std::countr_zero(m)));
    std::vector<Fr> lag(m);
    for (size_t i = 0; i < m; ++i) lag[i] = LagrangeNaive(i, m, w, t.tau);
    // Per-variable polynomial values, from the matrices row by row.
    const size_t n = c.num_variables();
    std::vector<Fr> at(n), bt(n), ct(n);
    for (size_t r = 0; r < c.num_constraints(); ++r) {
      for (auto [mat, out] : {std::pair{&c.a, &at}, {&c.b, &bt}, {&c.c, &ct}}) {
        for (uint64_t k = mat->row_offsets[r]; k < mat->row_offsets[r + 1]; ++k) {
          (*out)[mat->columns[k]] += mat->values[k] * lag[r];
        }
      }
    }
    for (size_t i = 0; i < c.num_inputs; ++i) at[i] += lag[c.num_constraints() + i];
    const G1Jacobian g1 = G1Jacobian::Generator();
    const G2Jacobian g2 = G2Jacobian::Generator();
    size_t ai = 0, bi = 0;
    for (size_t v = 0; v < n; ++v) {
      if (c.a_density.Test(v)) EXPECT_EQ(G1Jacobian::FromAffine(pk.a[ai++]), g1 * at[v]) << v;
      if (c.b_density.Test(v)) {
        EXPECT_EQ(G1Jacobian::FromAffine(pk.b_g1[bi]), g1 * bt[v]) << v;
        EXPECT_EQ(G2Jacobian::FromAffine(pk.b_g2[bi++]), g2 * bt[v]) << v;
      }
      Fr x = t.beta * at[v] + t.alpha * bt[v] + ct[v];
      if (v < c.num_inputs) {
        EXPECT_EQ(G1Jacobian::FromAffine(pk.vk.ic[v]), g1 * (x * t.gamma.Inverse()));
      } else if (v % 17 == 0) {
        EXPECT_EQ(G1Jacobian::FromAffine(pk.l[v - c.num_inputs]), g1 * (x * t.delta.Inverse()));
      }
    }
    EXPECT_EQ(ai, pk.a.size());
    EXPECT_EQ(bi, pk.b_g1.size());
    const Fr z_tau = t.tau.Pow(uint64_t(m)) - Fr::One();
    for (size_t i : {size_t(0), size_t(1), pk.h.size() - 1}) {
      Fr expect =
          form == HQueryForm::kBellperson
              ? t.tau.Pow(uint64_t(i)) * z_tau * t.delta.Inverse()
              : LagrangeNaive(2 * i + 1, 2 * m, DomainRootOfUnity(form, unsigned(std::countr_zero(2 * m))), t.tau) *
                    t.delta.Inverse();
      EXPECT_EQ(G1Jacobian::FromAffine(pk.h[i]), g1 * expect) << i;
    }
    EXPECT_EQ(G1Jacobian::FromAffine(pk.vk.alpha_g1), g1 * t.alpha);
    EXPECT_EQ(G2Jacobian::FromAffine(pk.vk.gamma_g2), g2 * t.gamma);
    EXPECT_EQ(G2Jacobian::FromAffine(pk.vk.delta_g2), g2 * t.delta);
  }
}

TEST(Setup, RefusesAnUnconstrainedAuxVariable) {
  r1cs::RecordingCS cs;
  Variable x = cs.Alloc("x", Fr());
  cs.Alloc("lonely", Fr());
  cs.Enforce("x * x = x", x, x, x);
  r1cs::CompiledCircuit c = std::move(cs).Finish();
  try {
    GenerateParameters(c);
    FAIL() << "setup accepted an identity l point";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("aux 1"), std::string::npos) << e.what();
  }
}

TEST(FixedBase, MatchesDoubleAndAdd) {
  auto rng = test::SeededRng();
  for (unsigned w : {1u, 5u, 8u, 13u}) {
    FixedBaseTable<ec::G1Curve> t(G1Affine::Generator(), w, 2);
    std::vector<Fr> s = {Fr(), Fr::One(), -Fr::One(), Fr::Random(rng), Fr::Random(rng)};
    std::vector<G1Affine> out(s.size());
    t.MulBatch(s, out, 2);
    for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(G1Jacobian::FromAffine(out[i]), G1Jacobian::Generator() * s[i]);
  }
  FixedBaseTable<ec::G2Curve> t2(ec::G2Affine::Generator(), 7);
  Fr s = Fr::Random(rng);
  EXPECT_EQ(t2.Mul(s), G2Jacobian::Generator() * s);
}

// ---- prove / verify -------------------------------------------------------------

class RoundTrip : public ::testing::TestWithParam<std::tuple<unsigned, unsigned, HQueryForm>> {};

TEST_P(RoundTrip, SyntheticProofsVerifyAndTamperingIsRejected) {
  auto [log_size, num_public, form] = GetParam();
  synthetic::SyntheticParams p{.log_size = log_size, .num_public = num_public, .lc_width = 50, .lc_period = 8};
  Fixture f = MakeSynthetic(p, form);
  CpuBackend cpu({.threads = 2});
  r1cs::Assignment z = synthetic::Witness(p, test::TestSeed());
  std::vector<Fr> x = z.PublicInputs();
  ASSERT_EQ(x.size(), num_public);
  Proof proof = Prove(cpu, f.pk, f.circuit, std::move(z));
  EXPECT_TRUE(Verify(f.pvk, proof, x));

  // Each public input changed, each proof point moved: rejected.
  for (size_t i = 0; i < x.size(); ++i) {
    auto y = x;
    y[i] += Fr::One();
    EXPECT_FALSE(Verify(f.pvk, proof, y)) << "input " << i;
  }
  const G1Jacobian g1 = G1Jacobian::Generator();
  Proof bad = proof;
  bad.a = (G1Jacobian::FromAffine(bad.a) + g1).ToAffine();
  EXPECT_FALSE(Verify(f.pvk, bad, x));
  bad = proof;
  bad.c = (G1Jacobian::FromAffine(bad.c) + g1).ToAffine();
  EXPECT_FALSE(Verify(f.pvk, bad, x));
  bad = proof;
  bad.b = (G2Jacobian::FromAffine(bad.b) + G2Jacobian::Generator()).ToAffine();
  EXPECT_FALSE(Verify(f.pvk, bad, x));
  // Wrong number of public inputs is a usage error, not "invalid".
  auto short_x = x;
  short_x.pop_back();
  EXPECT_THROW(Verify(f.pvk, proof, short_x), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Circuits, RoundTrip,
                         ::testing::Values(std::tuple{8u, 1u, HQueryForm::kBellperson},
                                           std::tuple{10u, 4u, HQueryForm::kBellperson},
                                           std::tuple{9u, 40u, HQueryForm::kBellperson},
                                           std::tuple{8u, 3u, HQueryForm::kSnarkjsOddCoset},
                                           std::tuple{10u, 12u, HQueryForm::kSnarkjsOddCoset}));

TEST(Prover, InputsInAllMatricesConstantsAndLargeLcs) {
  r1cs::RecordingCS rec({.record_names = true});
  InputsEverywhere(rec, {});
  r1cs::CompiledCircuit c = std::move(rec).Finish();
  EXPECT_TRUE(c.b_density.Test(1) && c.b_density.Test(2) && c.b_density.Test(3));  // x0 (out's row), x1, x2 in B
  CpuBackend cpu({.threads = 2});
  auto rng = test::SeededRng();
  std::vector<Fr> xs = {Fr::Random(rng), Fr::Random(rng), Fr::Random(rng)};
  for (HQueryForm form : {HQueryForm::kBellperson, HQueryForm::kSnarkjsOddCoset}) {
    ProvingKey pk = GenerateParameters(c, {.h_form = form});
    r1cs::WitnessCS w(c.num_inputs, c.num_aux);
    InputsEverywhere(w, xs);
    r1cs::Assignment z = w.TakeAssignment();
    std::vector<Fr> pub = z.PublicInputs();
    ASSERT_EQ(pub.size(), 4u);
    Proof proof = Prove(cpu, pk, c, std::move(z));
    auto pvk = PrepareVerifyingKey(pk.vk);
    EXPECT_TRUE(Verify(pvk, proof, pub));
    pub[3] += Fr::One();
    EXPECT_FALSE(Verify(pvk, proof, pub));
  }
}

TEST(Prover, RefusesAnUnsatisfiedWitnessNamingTheConstraint) {
  r1cs::RecordingCS rec({.record_names = true});
  InputsEverywhere(rec, {});
  r1cs::CompiledCircuit c = std::move(rec).Finish();
  ProvingKey pk = GenerateParameters(c);
  r1cs::WitnessCS w(c.num_inputs);
  InputsEverywhere(w, {Fr::FromUint64(2), Fr::FromUint64(3), Fr::FromUint64(4)}, /*break_it=*/true);
  CpuBackend cpu({.threads = 1});
  try {
    Prove(cpu, pk, c, w.TakeAssignment());
    FAIL() << "proved an unsatisfied witness";
  } catch (const UnsatisfiedWitnessError& e) {
    EXPECT_EQ(e.failure().name, "inputs everywhere/big lc");
    EXPECT_NE(std::string(e.what()).find("inputs everywhere/big lc"), std::string::npos);
  }
  // Wrong shapes are refused too.
  r1cs::Assignment wrong;
  wrong.num_inputs = c.num_inputs;
  wrong.values.assign(c.num_variables() - 1, Fr::One());
  EXPECT_THROW(Prove(cpu, pk, c, std::move(wrong)), std::invalid_argument);
}

TEST(Prover, FixedRandomnessIsDeterministicAndMatchesTheFormula) {
  synthetic::SyntheticParams p{.log_size = 8, .num_public = 3};
  Fixture f = MakeSynthetic(p);
  auto rng = test::SeededRng();
  const uint64_t seed = rng();
  const Fr r = Fr::Random(rng), s = Fr::Random(rng);
  CpuBackend cpu2({.threads = 2}), cpu1({.threads = 1});
  Proof p1 = ProveWithRandomness(cpu2, f.pk, f.circuit, synthetic::Witness(p, seed), r, s);
  Proof p2 = ProveWithRandomness(cpu1, f.pk, f.circuit, synthetic::Witness(p, seed), r, s);
  EXPECT_EQ(p1, p2);
  EXPECT_EQ(EncodeProof(p1), EncodeProof(p2));
  Proof p3 = ProveWithRandomness(cpu2, f.pk, f.circuit, synthetic::Witness(p, seed), r + Fr::One(), s);
  EXPECT_NE(p1, p3);
  const auto x = synthetic::Witness(p, seed).PublicInputs();
  EXPECT_TRUE(Verify(f.pvk, p3, x));

  // The same proof from the definition, with naive MSMs.
  r1cs::Assignment z = synthetic::Witness(p, seed);
  r1cs::AbcVectors abc = r1cs::EvaluateAbc(f.circuit, z.values, {.pad_to = f.pk.domain_size()});
  std::vector<Fr> h = ComputeHScalars(f.pk.h_form, abc.a, abc.b, abc.c);
  std::vector<Fr> za, zb;
  for (size_t v = 0; v < z.values.size(); ++v) {
    if (f.pk.a_density.Test(v)) za.push_back(z.values[v]);
    if (f.pk.b_density.Test(v)) zb.push_back(z.values[v]);
  }
  G1Jacobian a_sum = msm::NaiveMsmG1(f.pk.a, za), b1 = msm::NaiveMsmG1(f.pk.b_g1, zb);
  G2Jacobian b2 = msm::NaiveMsmG2(f.pk.b_g2, zb);
  G1Jacobian l = msm::NaiveMsmG1(f.pk.l, z.aux()), hh = msm::NaiveMsmG1(f.pk.h, h);
  const auto& vk = f.pk.vk;
  auto J1 = [](const G1Affine& a) { return G1Jacobian::FromAffine(a); };
  G1Jacobian A = J1(vk.alpha_g1) + a_sum + J1(vk.delta_g1) * r;
  G2Jacobian B = G2Jacobian::FromAffine(vk.beta_g2) + b2 + G2Jacobian::FromAffine(vk.delta_g2) * s;
  G1Jacobian B1 = J1(vk.beta_g1) + b1 + J1(vk.delta_g1) * s;
  // C = s A + r B1 - r s delta + H + L
  G1Jacobian C = A * s + B1 * r - J1(vk.delta_g1) * (r * s) + hh + l;
  EXPECT_EQ(p1.a, A.ToAffine());
  EXPECT_EQ(p1.b, B.ToAffine());
  EXPECT_EQ(p1.c, C.ToAffine());
}

TEST(Prover, SplitStartFinishAndBatches) {
  synthetic::SyntheticParams p{.log_size = 8, .num_public = 2};
  Fixture f = MakeSynthetic(p);
  CpuBackend cpu({.threads = 2});
  std::vector<r1cs::Assignment> ws;
  std::vector<std::vector<Fr>> xs;
  const uint64_t seed = test::TestSeed();
  for (uint64_t k = 0; k < 4; ++k) {
    ws.push_back(synthetic::Witness(p, seed + k));
    xs.push_back(ws.back().PublicInputs());
  }
  std::vector<Proof> proofs = ProveBatch(cpu, f.pk, f.circuit, ws);
  ASSERT_EQ(proofs.size(), 4u);
  for (size_t k = 0; k < 4; ++k) EXPECT_TRUE(Verify(f.pvk, proofs[k], xs[k]));
  EXPECT_TRUE(VerifyBatch(f.pvk, proofs, xs));
  EXPECT_TRUE(VerifyBatch(f.pvk, {}, {}));
  // One bad member spoils the batch; swapped inputs too.
  auto bad_x = xs;
  bad_x[2][0] += Fr::One();
  EXPECT_FALSE(VerifyBatch(f.pvk, proofs, bad_x));
  std::swap(bad_x[0], bad_x[1]);
  bad_x[2] = xs[2];
  EXPECT_FALSE(VerifyBatch(f.pvk, proofs, bad_x));
  EXPECT_THROW(VerifyBatch(f.pvk, proofs, std::span(xs).first(3)), std::invalid_argument);

  // ProveStart / ProveFinish by hand equal ProveWithRandomness.
  const Fr r = Fr::FromUint64(11), s = Fr::FromUint64(13);
  ProverInput in = PrepareProverInput(f.pk, f.circuit, ws[0]);
  std::vector<PendingProof> pending = cpu.ProveStart(f.pk, std::span(&in, 1));
  Proof split = cpu.ProveFinish(f.pk, std::move(pending[0]), r, s);
  EXPECT_EQ(split, ProveWithRandomness(cpu, f.pk, f.circuit, ws[0], r, s));
  // Unpadded a/b/c are refused by the backend.
  ProverInput raw;
  raw.abc = r1cs::EvaluateAbc(f.circuit, ws[0].values);
  raw.assignment = ws[0];
  raw.abc.a.pop_back();
  EXPECT_THROW(cpu.ProveStart(f.pk, std::span(&raw, 1)), std::invalid_argument);
}

TEST(Prover, AbcInCallerMemoryGivesTheSameProofAndIsReleasedByProveStart) {
  // a/b/c written into caller memory (what the daemon does with pinned
  // buffers): memory filled with garbage first (every element must be
  // written), the same proof as the vector path for the same r, s, and the
  // owner dropped by ProveStart.
  const synthetic::SyntheticParams params{.log_size = 9, .num_public = 2};
  Fixture f = MakeSynthetic(params);
  CpuBackend cpu({.threads = 2});
  auto rng = test::SeededRng();
  const r1cs::Assignment z = synthetic::Witness(params, rng());
  const Fr r = Fr::Random(rng), s = Fr::Random(rng);
  const size_t m = f.pk.domain_size();
  std::weak_ptr<std::vector<Fr>> watch;
  size_t asked = 0;
  ProveOptions o;
  o.abc_memory = [&](size_t per_side, size_t witness) {
    asked = per_side;
    EXPECT_EQ(witness, z.values.size());
    auto mem = std::make_shared<std::vector<Fr>>(3 * per_side + witness);
    for (Fr& e : *mem) e = Fr::Random(rng);  // garbage
    watch = mem;
    AbcMemory out;
    out.spans = {.a = {mem->data(), per_side},
                 .b = {mem->data() + per_side, per_side},
                 .c = {mem->data() + 2 * per_side, per_side}};
    out.z = {mem->data() + 3 * per_side, witness};
    out.owner = mem;
    return out;
  };
  ProverInput in = PrepareProverInput(f.pk, f.circuit, z, o);
  EXPECT_EQ(asked, m);
  ASSERT_TRUE(in.abc_external.has_value());
  EXPECT_TRUE(in.abc.a.empty());
  const r1cs::AbcVectors want = r1cs::EvaluateAbc(f.circuit, z.values, {.pad_to = m});
  for (int k = 0; k < 3; ++k) {
    const std::vector<Fr>& w = k == 0 ? want.a : k == 1 ? want.b : want.c;
    EXPECT_TRUE(std::equal(w.begin(), w.end(), in.Abc(k).begin(), in.Abc(k).end())) << "side " << k;
  }
  EXPECT_TRUE(std::equal(z.values.begin(), z.values.end(), in.z_copy.begin(), in.z_copy.end()));
  EXPECT_FALSE(watch.expired());
  std::vector<PendingProof> pending = cpu.ProveStart(f.pk, std::span(&in, 1));
  EXPECT_TRUE(watch.expired()) << "ProveStart kept the caller's a/b/c memory";
  EXPECT_EQ(cpu.ProveFinish(f.pk, std::move(pending[0]), r, s), ProveWithRandomness(cpu, f.pk, f.circuit, z, r, s));

  // Memory of the wrong size is refused before anything is written.
  ProveOptions bad;
  bad.abc_memory = [&](size_t per_side, size_t) {
    auto mem = std::make_shared<std::vector<Fr>>(3 * per_side);
    AbcMemory out;
    out.spans = {.a = {mem->data(), per_side - 1}, .b = {mem->data(), per_side}, .c = {mem->data(), per_side}};
    out.owner = mem;
    return out;
  };
  EXPECT_THROW(PrepareProverInput(f.pk, f.circuit, z, bad), std::invalid_argument);
  ProveOptions bad_z;
  bad_z.abc_memory = [&](size_t per_side, size_t witness) {
    auto mem = std::make_shared<std::vector<Fr>>(3 * per_side + witness);
    AbcMemory out;
    out.spans = {.a = {mem->data(), per_side},
                 .b = {mem->data() + per_side, per_side},
                 .c = {mem->data() + 2 * per_side, per_side}};
    out.z = {mem->data() + 3 * per_side, witness - 1};
    out.owner = mem;
    return out;
  };
  EXPECT_THROW(PrepareProverInput(f.pk, f.circuit, z, bad_z), std::invalid_argument);
}

TEST(Prover, KeyForAnotherCircuitIsRefused) {
  Fixture f = MakeSynthetic({.log_size = 8, .num_public = 2});
  synthetic::SyntheticParams other{.log_size = 8, .num_public = 3};
  r1cs::CompiledCircuit c = synthetic::Record(other);
  CpuBackend cpu({.threads = 1});
  EXPECT_THROW(Prove(cpu, f.pk, c, synthetic::Witness(other, 1)), std::invalid_argument);
}

// ---- proof encoding ---------------------------------------------------------------

TEST(ProofEncoding, RoundTripAndRejections) {
  auto rng = test::SeededRng();
  Proof p{(G1Jacobian::Generator() * Fr::Random(rng)).ToAffine(),
          (G2Jacobian::Generator() * Fr::Random(rng)).ToAffine(),
          (G1Jacobian::Generator() * Fr::Random(rng)).ToAffine()};
  ProofBytes bytes = EncodeProof(p);
  EXPECT_EQ(bytes[0] & 0x80, 0x80);  // compressed flags
  std::string why;
  auto back = DecodeProof(bytes, &why);
  ASSERT_TRUE(back.has_value()) << why;
  EXPECT_EQ(*back, p);
  EXPECT_FALSE(DecodeProof(std::span(bytes).first(191), &why));
  EXPECT_NE(why.find("191"), std::string::npos);
  // Infinity for C.
  Proof inf = p;
  inf.c = G1Affine::Infinity();
  ProofBytes ib = EncodeProof(inf);
  EXPECT_FALSE(DecodeProof(ib, &why));
  EXPECT_NE(why.find("proof point C"), std::string::npos) << why;
  // Corrupting bytes of B gives an error naming B (or, rarely, another valid point).
  int rejected = 0;
  for (int i = 0; i < 20; ++i) {
    ProofBytes cb = bytes;
    cb[48 + 1 + rng() % 94] ^= uint8_t(1 + rng() % 255);
    if (!DecodeProof(cb, &why)) {
      ++rejected;
      EXPECT_NE(why.find("proof point B"), std::string::npos) << why;
    }
  }
  EXPECT_GT(rejected, 10);
  // Concatenated partition proofs.
  std::vector<uint8_t> two(bytes.begin(), bytes.end());
  two.insert(two.end(), bytes.begin(), bytes.end());
  auto both = DecodeProofs(two, &why);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->size(), 2u);
  two[192 + 150] ^= 0xff;
  EXPECT_FALSE(DecodeProofs(two, &why));
  EXPECT_NE(why.find("proof 1"), std::string::npos) << why;
}

}  // namespace
}  // namespace cuzk::groth16
