// engine/r1cs: linear combinations, the three constraint-system modes
// (record, witness-only, check) on hand-written and synthetic circuits,
// EvaluateAbc and satisfaction checks.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/r1cs/checking.hpp"
#include "engine/r1cs/evaluate.hpp"
#include "engine/r1cs/record.hpp"
#include "engine/r1cs/witness.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::r1cs {
namespace {

using ff::Fr;
namespace synthetic = circuits::synthetic;

Fr F(int64_t v) { return Fr::FromInt64(v); }

TEST(LinearCombination, MergesRepeatedVariablesAndDropsZeros) {
  Variable x = Variable::Aux(3), y = Variable::Aux(1), in = Variable::Input(2);
  LinearCombination lc = LinearCombination(x) + F(2) * y + x + in;
  ASSERT_EQ(lc.size(), 3u);
  // Sorted: inputs before aux, then by index.
  EXPECT_EQ(lc.terms()[0].var, in);
  EXPECT_EQ(lc.terms()[1].var, y);
  EXPECT_EQ(lc.terms()[2].var, x);
  EXPECT_EQ(lc.terms()[2].coeff, F(2));
  lc -= F(2) * x;  // merged coefficient 0: the term disappears
  ASSERT_EQ(lc.size(), 2u);
  EXPECT_EQ(lc.terms()[1].var, y);
  lc += F(0) * Variable::Aux(9);  // zero coefficients are never inserted
  EXPECT_EQ(lc.size(), 2u);
  lc *= F(0);
  EXPECT_TRUE(lc.empty());
}

TEST(LinearCombination, MergeOfTwoLcsEqualsTermByTermAdds) {
  auto rng = test::SeededRng();
  for (int trial = 0; trial < 50; ++trial) {
    LinearCombination a, b, expect;
    for (int i = 0; i < 20; ++i) {
      Variable v = (rng() & 1) ? Variable::Aux(rng() % 10) : Variable::Input(rng() % 4);
      Fr c = F(int64_t(rng() % 5) - 2);
      ((rng() & 1) ? a : b).Add(v, c);
    }
    Fr s = F(int64_t(rng() % 3) - 1);
    expect = a;
    for (const auto& t : b.terms()) expect.Add(t.var, t.coeff * s);
    LinearCombination merged = a;
    merged.MergeScaled(b, s);
    EXPECT_EQ(merged, expect);
    for (size_t i = 1; i < merged.size(); ++i) EXPECT_LT(merged.terms()[i - 1].var, merged.terms()[i].var);
    for (const auto& t : merged.terms()) EXPECT_FALSE(t.coeff.IsZero());
  }
}

// A small gadget set used by the mode tests: x^3 + x + 5 = out (the classic),
// with namespaces, constants, a bellperson-style `|lc| lc + v` closure and a
// repeated-variable LC.
template <ConstraintSystem CS>
void Cubic(CS& cs, Fr x_value, bool break_it = false) {
  auto ns = Namespace(cs, "cubic");
  Variable x = cs.Alloc("x", [&] { return x_value; });
  Variable x2, x3;
  {
    auto sq = Namespace(cs, "square");
    x2 = cs.Alloc("x2", [&] { return cs.Value(x) * cs.Value(x); });
    cs.Enforce("x * x = x2", x, x, x2);
  }
  x3 = cs.Alloc("x3", [&] { return cs.Value(x2) * cs.Value(x) + (break_it ? Fr::One() : Fr()); });
  cs.Enforce(
      "x2 * x = x3", [&](LinearCombination lc) { return lc + x2; }, [&](LinearCombination lc) { return lc + x; },
      [&] { return LinearCombination(x3); });
  Variable out = cs.AllocInput("out", [&] { return cs.Value(x3) + cs.Value(x) + F(5); });
  // (x3 + x + x - x + 5) * ONE = out; the repeated x merges.
  cs.Enforce("x3 + x + 5 = out", LinearCombination(x3) + x + x - x + F(5) * Variable::One(), Variable::One(), out);
}

TEST(ConstraintSystems, RecordsCsrNamesAndDensities) {
  RecordingCS cs({.record_names = true});
  Cubic(cs, Fr());
  CompiledCircuit c = std::move(cs).Finish();
  EXPECT_EQ(c.num_inputs, 2u);
  EXPECT_EQ(c.num_aux, 3u);
  ASSERT_EQ(c.num_constraints(), 3u);
  EXPECT_EQ(c.num_prover_rows(), 5u);
  ASSERT_EQ(c.constraint_names.size(), 3u);
  EXPECT_EQ(c.constraint_names[0], "cubic/square/x * x = x2");
  EXPECT_EQ(c.constraint_names[1], "cubic/x2 * x = x3");
  EXPECT_EQ(c.constraint_names[2], "cubic/x3 + x + 5 = out");
  // Global numbering: ONE=0, out=1, x=2, x2=3, x3=4. Row 2's A: ONE*5, x*1, x3*1 (sorted).
  ASSERT_EQ(c.a.row_offsets, (util::OverwriteVector<uint64_t>{0, 1, 2, 5}));
  EXPECT_EQ(c.a.columns, (util::OverwriteVector<uint32_t>{2, 3, 0, 2, 4}));
  EXPECT_EQ(c.a.values[2], F(5));
  EXPECT_EQ(c.c.columns, (util::OverwriteVector<uint32_t>{3, 4, 1}));
  // A-dense: inputs (ONE, out) always, x, x2, x3. B-dense: x and ONE.
  for (uint64_t v = 0; v < 5; ++v) EXPECT_TRUE(c.a_density.Test(v)) << v;
  EXPECT_EQ(c.b_density.Count(), 2u);
  EXPECT_TRUE(c.b_density.Test(0));
  EXPECT_TRUE(c.b_density.Test(2));
  EXPECT_NO_THROW(ValidateCircuit(c));
}

TEST(ConstraintSystems, CheckModeNamesTheFirstFailingConstraint) {
  CheckingCS good;
  Cubic(good, F(3));
  EXPECT_TRUE(good.is_satisfied());
  Assignment z = good.TakeAssignment();
  EXPECT_EQ(z.values[1], F(35));

  CheckingCS bad;
  Cubic(bad, F(3), /*break_it=*/true);
  ASSERT_FALSE(bad.is_satisfied());
  EXPECT_EQ(bad.first_failure()->name, "cubic/x2 * x = x3");
  EXPECT_EQ(bad.first_failure()->index, 1u);
  EXPECT_EQ(bad.num_constraints(), 3u);  // synthesis went on
}

TEST(ConstraintSystems, WitnessModeMatchesCheckMode) {
  for (uint64_t expected_inputs : {0, 1, 2, 7}) {  // right, unknown and wrong guesses
    WitnessCS w(expected_inputs);
    Cubic(w, F(4));
    EXPECT_EQ(w.num_constraints(), 3u);
    CheckingCS c;
    Cubic(c, F(4));
    Assignment zw = w.TakeAssignment(), zc = c.TakeAssignment();
    EXPECT_EQ(zw.num_inputs, 2u);
    EXPECT_EQ(zw.values, zc.values) << expected_inputs;
  }
}

TEST(ConstraintSystems, ValueProviderErrorsPropagate) {
  WitnessCS w;
  EXPECT_THROW(w.Alloc("x", []() -> Fr { throw SynthesisError("no witness for x"); }), SynthesisError);
  EXPECT_THROW(w.Value(Variable::Aux(5)), SynthesisError);
  RecordingCS r;  // never calls providers
  EXPECT_NO_THROW(r.Alloc("x", []() -> Fr { throw SynthesisError("no witness"); }));
  EXPECT_THROW(r.Enforce("bad", Variable::Aux(7), Variable::One(), Variable::One()), SynthesisError);
}

TEST(ConstraintSystems, NamespacePopWithoutPushIsAnError) {
  CheckingCS c;
  EXPECT_THROW(c.PopNamespace(), std::logic_error);
}

class SyntheticModes : public ::testing::TestWithParam<std::tuple<unsigned, unsigned>> {};

TEST_P(SyntheticModes, RecordWitnessAndCheckAgree) {
  auto [log_size, num_public] = GetParam();
  synthetic::SyntheticParams p{.log_size = log_size, .num_public = num_public, .lc_width = 40, .lc_period = 8};
  const uint64_t seed = test::TestSeed();
  CompiledCircuit c = synthetic::Record(p);
  EXPECT_NO_THROW(ValidateCircuit(c));
  EXPECT_EQ(c.num_prover_rows(), uint64_t(1) << log_size);
  EXPECT_EQ(c.num_inputs, num_public + 1u);
  // Some aux variables are C-only: the a/b sections are sparser than l.
  EXPECT_LT(c.a_density.Count(), c.num_variables());
  EXPECT_LT(c.b_density.Count(), c.a_density.Count());

  Assignment zw = synthetic::Witness(p, seed);
  CheckingCS check;
  synthetic::Synthesize(check, p, seed);
  EXPECT_TRUE(check.is_satisfied()) << check.first_failure()->name;
  EXPECT_EQ(check.num_constraints(), c.num_constraints());
  Assignment zc = check.TakeAssignment();
  ASSERT_EQ(zw.values, zc.values);
  ASSERT_EQ(zw.num_inputs, c.num_inputs);
  ASSERT_EQ(zw.values.size(), c.num_variables());

  AbcVectors abc = EvaluateAbc(c, zw.values, {.pad_to = 2 * c.num_prover_rows()});
  ASSERT_EQ(abc.a.size(), 2 * c.num_prover_rows());
  EXPECT_FALSE(FirstUnsatisfied(c, abc).has_value());
  EXPECT_TRUE(IsSatisfied(c, zw.values));
  // Appended input rows: a = z_i, b = c = 0; the padding is zero.
  for (uint64_t i = 0; i < c.num_inputs; ++i) {
    EXPECT_EQ(abc.a[c.num_constraints() + i], zw.values[i]);
    EXPECT_TRUE(abc.b[c.num_constraints() + i].IsZero());
  }
  for (uint64_t r = c.num_prover_rows(); r < abc.a.size(); ++r) ASSERT_TRUE(abc.a[r].IsZero());
  // Single-threaded evaluation gives the same vectors.
  AbcVectors abc1 = EvaluateAbc(c, zw.values, {.pad_to = 2 * c.num_prover_rows(), .threads = 1});
  EXPECT_EQ(abc.a, abc1.a);
  EXPECT_EQ(abc.b, abc1.b);
  EXPECT_EQ(abc.c, abc1.c);
  // Into caller memory full of garbage (ones): every element is written, the
  // same values; wrong span lengths are refused.
  const size_t len = abc.a.size();
  std::vector<Fr> mem(3 * len, Fr::One());
  AbcSpans spans{.a = {mem.data(), len}, .b = {mem.data() + len, len}, .c = {mem.data() + 2 * len, len}};
  EvaluateAbcInto(c, zw.values, spans, {.threads = 2});
  EXPECT_EQ(spans.rows, c.num_prover_rows());
  EXPECT_TRUE(std::equal(abc.a.begin(), abc.a.end(), spans.a.begin()));
  EXPECT_TRUE(std::equal(abc.b.begin(), abc.b.end(), spans.b.begin()));
  EXPECT_TRUE(std::equal(abc.c.begin(), abc.c.end(), spans.c.begin()));
  EXPECT_FALSE(FirstUnsatisfied(c, spans).has_value());
  spans.c[3] += Fr::One();  // a * b = c held; c + 1 cannot
  ASSERT_TRUE(FirstUnsatisfied(c, spans).has_value());
  EXPECT_EQ(FirstUnsatisfied(c, spans)->index, 3u);
  AbcSpans short_c{.a = spans.a, .b = spans.b, .c = spans.c.first(len - 1)};
  EXPECT_THROW(EvaluateAbcInto(c, zw.values, short_c), std::invalid_argument);
  AbcSpans too_short{.a = spans.a.first(4), .b = spans.b.first(4), .c = spans.c.first(4)};
  EXPECT_THROW(EvaluateAbcInto(c, zw.values, too_short), std::invalid_argument);

  // A different witness seed gives a different assignment for the same R1CS.
  Assignment other = synthetic::Witness(p, seed + 1);
  EXPECT_NE(other.values, zw.values);
  EXPECT_TRUE(IsSatisfied(c, other.values));
}

TEST_P(SyntheticModes, TamperedWitnessNamesTheFirstFailingRow) {
  auto [log_size, num_public] = GetParam();
  synthetic::SyntheticParams p{.log_size = log_size, .num_public = num_public};
  CompiledCircuit c = synthetic::Record(p);
  // One seed for the witness and the tampering, so that CUZK_TEST_SEED replays both.
  auto rng = test::SeededRng();
  Assignment z = synthetic::Witness(p, rng());
  ASSERT_TRUE(IsSatisfied(c, z.values));
  // Add one to a constrained aux variable. The expected first failure is the smallest row that mentions
  // it and no longer holds, found here by evaluating those rows one at a time: a row can survive the
  // change (b * (1 - b) = 0 with b going from 0 to 1, x * y = z with y = 0), so "the first row that
  // mentions it" alone would be wrong. Rows that do not mention it still hold. A variable all of whose
  // rows survive is put back and another one drawn.
  auto row_value = [&](const CsrMatrix& m, uint64_t r) {
    Fr acc = Fr::Zero();
    for (uint64_t k = m.row_offsets[r]; k < m.row_offsets[r + 1]; ++k) acc += m.values[k] * z.values[m.columns[k]];
    return acc;
  };
  auto mentions = [&](uint64_t r, uint64_t v) {
    for (const CsrMatrix* m : {&c.a, &c.b, &c.c}) {
      for (uint64_t k = m->row_offsets[r]; k < m->row_offsets[r + 1]; ++k) {
        if (m->columns[k] == v) return true;
      }
    }
    return false;
  };
  uint64_t var = 0, expect = UINT64_MAX;
  for (int attempt = 0; expect == UINT64_MAX; ++attempt) {
    ASSERT_LT(attempt, 1000) << "no aux variable whose change breaks a row";
    if (attempt > 0) z.values[var] -= Fr::One();
    var = z.num_inputs + rng() % z.num_aux();
    z.values[var] += Fr::One();
    for (uint64_t r = 0; r < c.num_constraints() && expect == UINT64_MAX; ++r) {
      if (mentions(r, var) && row_value(c.a, r) * row_value(c.b, r) != row_value(c.c, r)) expect = r;
    }
  }
  ConstraintFailure f;
  ASSERT_FALSE(IsSatisfied(c, z.values, &f));
  EXPECT_EQ(f.index, expect);
  EXPECT_EQ(f.name, c.constraint_names[expect]);
  EXPECT_NE(f.a * f.b, f.c);
  AbcVectors abc = EvaluateAbc(c, z.values);
  auto f2 = FirstUnsatisfied(c, abc);
  ASSERT_TRUE(f2.has_value());
  EXPECT_EQ(f2->index, expect);
}

INSTANTIATE_TEST_SUITE_P(Sizes, SyntheticModes,
                         ::testing::Values(std::tuple{8u, 1u}, std::tuple{9u, 4u}, std::tuple{12u, 20u}));

TEST(ValidateCircuit, RejectsInconsistentCircuits) {
  CompiledCircuit good = synthetic::Record({.log_size = 6}, false);
  ASSERT_NO_THROW(ValidateCircuit(good));
  EXPECT_EQ(good.RowName(3), "constraint #3 (names not recorded)");
  {
    CompiledCircuit c = good;
    c.a.columns[0] = uint32_t(c.num_variables());
    EXPECT_THROW(ValidateCircuit(c), std::invalid_argument);
  }
  {
    CompiledCircuit c = good;
    c.b.row_offsets.pop_back();
    EXPECT_THROW(ValidateCircuit(c), std::invalid_argument);
  }
  {
    CompiledCircuit c = good;
    c.c.values[0] = Fr();
    EXPECT_THROW(ValidateCircuit(c), std::invalid_argument);
  }
  {
    CompiledCircuit c = good;
    c.b_density.Set(c.num_variables() - 1, !c.b_density.Test(c.num_variables() - 1));
    EXPECT_THROW(ValidateCircuit(c), std::invalid_argument);
  }
  {
    CompiledCircuit c = good;
    EXPECT_THROW(EvaluateAbc(c, std::vector<Fr>(3)), std::invalid_argument);
  }
}

}  // namespace
}  // namespace cuzk::r1cs
