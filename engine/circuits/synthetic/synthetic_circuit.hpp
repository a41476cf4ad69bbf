#pragma once
// A parameterized benchmark/test circuit whose Groth16 domain is exactly
// 2^log_size: constraints + inputs (ONE included) = 2^log_size, so the prover
// sees m = 2^log_size rows with no padding.
//
// It mixes what real circuits (SnapDeals) contain, chosen per row by a fixed
// structure RNG (the R1CS depends only on SyntheticParams, never on the
// witness seed):
//   ~45% products  z = x * y of recent variables;
//   ~20% products of small LCs with constants (x + c1 y + c0) * (y - c2 w) = z;
//   1 in lc_period rows a large LC s = sum_j c_j v_j over lc_width recent
//        variables (random field coefficients), as (sum) * ONE = s;
//   ~10% booleans b * (ONE - b) = 0 (b from the witness seed);
//   ~10% rows that mix a public input in: (x + c in_k) * ONE = s;
//   ~5%  "dead ends" z = x * y whose z is never used again (C-only: not
//        A- or B-dense, so the a/b sections are sparser than l);
//   ~10% LCs with repeated variables whose merged coefficients cancel
//        ((x + y - x + 2 y) * ONE = 3 y, the x terms merge to nothing).
// Public inputs: num_public in total; the first num_public - 1 are witness-seed
// values allocated as aux and exposed bellperson-style (alloc, AllocInput,
// row (input, ONE, aux)); the last is the final running value of the chain,
// so a verifier has to know the computation's result.
//
//   auto compiled = synthetic::Record({.log_size = 12});
//   r1cs::Assignment z = synthetic::Witness({.log_size = 12}, /*witness_seed=*/7);
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/compiled_circuit.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::circuits::synthetic {

struct SyntheticParams {
  unsigned log_size = 10;                // 2^log_size = constraints + inputs (>= 2^4)
  unsigned num_public = 4;               // public inputs besides ONE (>= 1)
  unsigned lc_width = 64;                // terms of the large linear combinations
  unsigned lc_period = 16;               // one large LC every lc_period rows
  uint64_t structure_seed = 0x63757a6b;  // wiring and coefficients

  uint64_t num_inputs() const { return uint64_t(num_public) + 1; }
  uint64_t num_constraints() const { return (uint64_t(1) << log_size) - num_inputs(); }
};

// splitmix64: a tiny deterministic generator for structure and witness values
// (not for secrets).
struct SplitMix64 {
  uint64_t state;
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return UINT64_MAX; }
  uint64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

inline void CheckParams(const SyntheticParams& p) {
  if (p.log_size < 4 || p.log_size > 30) throw std::invalid_argument("synthetic circuit: log_size must be in [4, 30]");
  if (p.num_public < 1) throw std::invalid_argument("synthetic circuit: num_public must be >= 1");
  if (p.num_inputs() + p.num_public + 9 > (uint64_t(1) << p.log_size)) {
    throw std::invalid_argument("synthetic circuit: too many public inputs for 2^" + std::to_string(p.log_size));
  }
  if (p.lc_width < 2 || p.lc_period < 2) throw std::invalid_argument("synthetic circuit: lc_width, lc_period >= 2");
}

template <r1cs::ConstraintSystem CS>
void Synthesize(CS& cs, const SyntheticParams& p, uint64_t witness_seed) {
  using ff::Fr;
  using r1cs::LinearCombination;
  using r1cs::Variable;
  CheckParams(p);
  SplitMix64 srng{p.structure_seed};
  SplitMix64 wrng{witness_seed ^ 0x5bd1e9955bd1e995ull};
  auto witness_value = [&] { return Fr::Random(wrng); };
  auto small_coeff = [&] { return Fr::FromInt64(int64_t(srng() % 17) - 8); };

  // A ring of recent variables the rows draw their operands from.
  constexpr size_t kPool = 256;
  std::vector<Variable> pool;
  pool.reserve(kPool);
  size_t pool_next = 0;
  auto remember = [&](Variable v) {
    if (pool.size() < kPool) {
      pool.push_back(v);
    } else {
      pool[pool_next] = v;
      pool_next = (pool_next + 1) % kPool;
    }
  };
  auto pick = [&] { return pool[srng() % pool.size()]; };

  uint64_t rows = 0;
  std::vector<Variable> inputs;
  {
    auto ns = r1cs::Namespace(cs, "inputs");
    for (unsigned i = 0; i < 4; ++i) remember(cs.Alloc([&] { return "seed " + std::to_string(i); }, witness_value));
    // Every aux must be constrained (an unconstrained one has an identity l
    // point and setup refuses it): tie the seeds together in one row.
    Variable seed_sum = cs.Alloc(
        "seed sum", [&] { return cs.Value(pool[0]) + cs.Value(pool[1]) + cs.Value(pool[2]) + cs.Value(pool[3]); });
    cs.Enforce(
        "seed sum", [&] { return LinearCombination(pool[0]) + pool[1] + pool[2] + pool[3]; },
        [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(seed_sum); });
    ++rows;
    remember(seed_sum);
    for (unsigned i = 0; i + 1 < p.num_public; ++i) {
      Variable v = cs.Alloc([&] { return "value " + std::to_string(i); }, witness_value);
      Variable in = cs.AllocInput([&] { return "input " + std::to_string(i); }, [&] { return cs.Value(v); });
      cs.Enforce([&] { return "expose " + std::to_string(i); }, [&] { return LinearCombination(in); },
                 [&] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(v); });
      ++rows;
      inputs.push_back(in);
      remember(v);
    }
  }

  const uint64_t body = p.num_constraints() - 1;  // the last row exposes the result
  Variable acc = pool.back();
  std::vector<std::pair<Variable, Fr>> big;  // the current large LC (structure only)
  {
    auto ns = r1cs::Namespace(cs, "body");
    while (rows < body) {
      const uint64_t row = rows;
      auto name = [&](const char* kind) {
        return [row, kind] { return std::string(kind) + " " + std::to_string(row); };
      };
      if (row % p.lc_period == p.lc_period - 1) {
        big.clear();
        for (unsigned j = 0; j < p.lc_width; ++j) big.push_back({pick(), Fr::Random(srng)});
        big.push_back({acc, Fr::One()});
        auto lc = [&] {
          LinearCombination l;
          for (auto& [v, c] : big) l.Add(v, c);
          return l;
        };
        Variable s = cs.Alloc(name("lc sum"), [&] {
          Fr t;
          for (auto& [v, c] : big) t += c * cs.Value(v);
          return t;
        });
        cs.Enforce(
            name("large lc"), lc, [] { return LinearCombination(Variable::One()); },
            [&] { return LinearCombination(s); });
        acc = s;
        remember(s);
        ++rows;
        continue;
      }
      const uint64_t kind = srng() % 20;
      if (kind < 9) {  // product
        Variable x = pick(), y = pick();
        Variable z = cs.Alloc(name("product"), [&] { return cs.Value(x) * cs.Value(y); });
        cs.Enforce(
            name("x * y = z"), [&] { return LinearCombination(x); }, [&] { return LinearCombination(y); },
            [&] { return LinearCombination(z); });
        remember(z);
        if (kind < 2) acc = z;
      } else if (kind < 13) {  // LC product with constants
        Variable x = pick(), y = pick(), w = pick();
        Fr c0 = small_coeff(), c1 = small_coeff(), c2 = small_coeff();
        auto la = [&] { return LinearCombination(x) + c1 * y + c0 * Variable::One(); };
        auto lb = [&] { return LinearCombination(y) - c2 * w; };
        Variable z = cs.Alloc(name("lc product"),
                              [&] { return (cs.Value(x) + c1 * cs.Value(y) + c0) * (cs.Value(y) - c2 * cs.Value(w)); });
        cs.Enforce(name("(x + c1 y + c0) * (y - c2 w) = z"), la, lb, [&] { return LinearCombination(z); });
        remember(z);
      } else if (kind < 15) {  // boolean
        Variable b = cs.Alloc(name("bit"), [&] { return Fr::FromUint64(wrng() & 1); });
        cs.Enforce(
            name("bit is boolean"), [&] { return LinearCombination(b); },
            [&] { return LinearCombination(Variable::One()) - b; }, [] { return LinearCombination(); });
        remember(b);
      } else if (kind < 17 && !inputs.empty()) {  // mixes a public input in
        Variable x = pick(), in = inputs[srng() % inputs.size()];
        Fr c = small_coeff();
        Variable s = cs.Alloc(name("with input"), [&] { return cs.Value(x) + c * cs.Value(in); });
        cs.Enforce(
            name("(x + c in) * ONE = s"), [&] { return LinearCombination(x) + c * in; },
            [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(s); });
        remember(s);
      } else if (kind < 18) {  // dead end: only ever in C
        Variable x = pick(), y = pick();
        Variable z = cs.Alloc(name("dead end"), [&] { return cs.Value(x) * cs.Value(y); });
        cs.Enforce(
            name("x * y = dead end"), [&] { return LinearCombination(x); }, [&] { return LinearCombination(y); },
            [&] { return LinearCombination(z); });
      } else {  // repeated terms that merge; x cancels when x != y
        Variable x = pick(), y = pick();
        Variable t = cs.Alloc(name("merged"), [&] { return Fr::FromUint64(3) * cs.Value(y); });
        cs.Enforce(
            name("(x + y - x + 2 y) * ONE = t"), [&] { return LinearCombination(x) + y - x + Fr::FromUint64(2) * y; },
            [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(t); });
        remember(t);
      }
      ++rows;
    }
  }
  // The running value becomes the last public input.
  Variable out = cs.AllocInput("result", [&] { return cs.Value(acc); });
  cs.Enforce(
      "result", [&] { return LinearCombination(out); }, [] { return LinearCombination(Variable::One()); },
      [&] { return LinearCombination(acc); });
}

// Convenience wrappers (synthetic_circuit.cpp).
r1cs::CompiledCircuit Record(const SyntheticParams& p, bool record_names = true);
r1cs::Assignment Witness(const SyntheticParams& p, uint64_t witness_seed);

}  // namespace cuzk::circuits::synthetic
