#pragma once
// Poseidon in circuit as neptune 11's legacy circuit (src/circuit.rs
// poseidon_hash) builds it: the optimized-static form of snapdeals spec 7.3
// (compressed round constants, pre-sparse matrix, sparse partial rounds), so
// that every S-box input, square, fourth power and output is exactly the
// variable neptune allocates, and every linear layer is folded into the LC
// of the next S-box input.
//
//   Variable h = PoseidonHash(cs, preimage, MerkleTreeTag(8));   // arity = preimage.size()
//
// Rows = aux = 3 (t*8 + R_P - 1) + (t*8 + R_P - arity): 311 (arity 2), 377 (4),
// 505 (8), 665 (11). Round 0 S-boxes take x_i + pre_i directly (no allocation
// of the sum; the domain tag's S-box is a constant); every later S-box on an
// element first allocates v = LC_e, then v^2, v^4, v^5 + post.
#include <array>
#include <span>
#include <stdexcept>
#include <string>

#include "engine/circuits/snapdeals/gadgets/cs_traits.hpp"
#include "engine/circuits/snapdeals/native/poseidon_constants.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::snapdeals::gadgets {

// Rows (= aux) of one Poseidon hash of this arity.
inline uint64_t PoseidonConstraints(unsigned arity) {
  const PoseidonConstants& c = GetPoseidonConstants(arity);
  const uint64_t sboxes = uint64_t(c.width) * c.full_rounds + c.partial_rounds;
  return 3 * (sboxes - 1) + (sboxes - arity);
}

namespace internal {

inline constexpr size_t kMaxPoseidonWidth = 12;

// One state element: its LC over earlier S-box outputs (and ONE) when rows
// are built, its value when values exist.
struct PoseidonElement {
  r1cs::LinearCombination lc;
  ff::Fr value;
};

template <class CS>
class PoseidonCircuit {
 public:
  using Elt = PoseidonElement;
  using LC = r1cs::LinearCombination;
  using Variable = r1cs::Variable;

  PoseidonCircuit(CS& cs, const PoseidonConstants& c) : cs_(cs), c_(c), t_(c.width) {}

  Variable Hash(std::span<const Variable> preimage, const ff::Fr& tag) {
    const ff::Fr* k = c_.compressed_round_constants.data();
    const unsigned half = c_.full_rounds / 2;
    // Round 0: the tag's S-box is a constant; the inputs' S-boxes read x_i + pre_i.
    {
      ff::Fr s0 = tag + k[0];
      s0 = s0.Square().Square() * s0 + k[t_];
      st_[0].value = s0;
      if constexpr (kNeedsLcs<CS>) st_[0].lc = LC::Constant(s0);
    }
    for (unsigned i = 1; i < t_; ++i) FirstSBox(preimage[i - 1], k[i], k[t_ + i], st_[i]);
    k += 2 * t_;
    Mix(c_.mds);
    for (unsigned r = 1; r < half; ++r, k += t_) {
      for (unsigned i = 0; i < t_; ++i) SBox(st_[i], &k[i]);
      Mix(r + 1 == half ? c_.pre_sparse_matrix : c_.mds);
    }
    for (unsigned r = 0; r < c_.partial_rounds; ++r) {
      SBox(st_[0], k++);
      SparseMix(c_.sparse_matrices[r]);
    }
    for (unsigned r = 1; r < half; ++r, k += t_) {
      for (unsigned i = 0; i < t_; ++i) SBox(st_[i], &k[i]);
      Mix(c_.mds);
    }
    for (unsigned i = 0; i < t_; ++i) SBox(st_[i], nullptr);
    Mix(c_.mds);

    Variable out = cs_.Alloc("hash", [&] { return st_[1].value; });
    cs_.Enforce(
        "hash output", [&] { return st_[1].lc; }, [] { return LC(Variable::One()); }, [&] { return LC(out); });
    return out;
  }

 private:
  // Round-0 S-box of an input x (no allocation of x + pre): l2, l4, r = (x+pre)^5 + post.
  void FirstSBox(Variable x, const ff::Fr& pre, const ff::Fr& post, Elt& out) {
    ff::Fr xv, l2v, l4v, rv;
    if constexpr (kNeedsValues<CS>) {
      xv = cs_.Value(x) + pre;
      l2v = xv.Square();
      l4v = l2v.Square();
      rv = xv * l4v + post;
    }
    auto xin = [&] { return LC(x) + pre * Variable::One(); };
    Variable l2 = cs_.Alloc("x2", l2v);
    cs_.Enforce("x2 = x^2", xin, xin, [&] { return LC(l2); });
    Variable l4 = cs_.Alloc("x4", l4v);
    cs_.Enforce(
        "x4 = x2^2", [&] { return LC(l2); }, [&] { return LC(l2); }, [&] { return LC(l4); });
    Variable r = cs_.Alloc("x5", rv);
    cs_.Enforce(
        "x5 = x * x4", xin, [&] { return LC(l4); }, [&] { return LC(r) - post * Variable::One(); });
    out.value = rv;
    if constexpr (kNeedsLcs<CS>) out.lc = LC(r);
  }

  // Later S-box: v = LC_e (allocated), l2, l4, r = v^5 (+ post unless terminal).
  void SBox(Elt& e, const ff::Fr* post) {
    ff::Fr vv, l2v, l4v, rv;
    if constexpr (kNeedsValues<CS>) {
      vv = e.value;
      l2v = vv.Square();
      l4v = l2v.Square();
      rv = vv * l4v;
      if (post) rv += *post;
    }
    Variable v = cs_.Alloc("allocated x", vv);
    cs_.Enforce(
        "enforce allocated", [&] { return std::move(e.lc); }, [] { return LC(Variable::One()); },
        [&] { return LC(v); });
    Variable l2 = cs_.Alloc("x2", l2v);
    cs_.Enforce(
        "x2 = x^2", [&] { return LC(v); }, [&] { return LC(v); }, [&] { return LC(l2); });
    Variable l4 = cs_.Alloc("x4", l4v);
    cs_.Enforce(
        "x4 = x2^2", [&] { return LC(l2); }, [&] { return LC(l2); }, [&] { return LC(l4); });
    Variable r = cs_.Alloc("x5", rv);
    cs_.Enforce(
        "x5 = x * x4", [&] { return LC(v); }, [&] { return LC(l4); },
        [&] {
          LC c(r);
          if (post) c -= *post * Variable::One();
          return c;
        });
    e.value = rv;
    if constexpr (kNeedsLcs<CS>) e.lc = LC(r);
  }

  // s = s * m (row vector times matrix).
  void Mix(const PoseidonMatrix& m) {
    std::array<Elt, kMaxPoseidonWidth> out;
    for (unsigned j = 0; j < t_; ++j) {
      if constexpr (kNeedsValues<CS>) {
        ff::Fr acc;
        for (unsigned i = 0; i < t_; ++i) acc += st_[i].value * m.at(i, j);
        out[j].value = acc;
      }
      if constexpr (kNeedsLcs<CS>) {
        for (unsigned i = 0; i < t_; ++i) out[j].lc.MergeScaled(st_[i].lc, m.at(i, j));
      }
    }
    for (unsigned j = 0; j < t_; ++j) st_[j] = std::move(out[j]);
  }

  // Partial-round sparse matrix: s'_0 = sum_i s_i w_i, s'_j = s_j + s_0 v_{j-1}.
  void SparseMix(const PoseidonSparseMatrix& sp) {
    Elt first;
    if constexpr (kNeedsValues<CS>) {
      ff::Fr acc;
      for (unsigned i = 0; i < t_; ++i) acc += st_[i].value * sp.w[i];
      first.value = acc;
      for (unsigned j = 1; j < t_; ++j) st_[j].value += st_[0].value * sp.v[j - 1];
    }
    if constexpr (kNeedsLcs<CS>) {
      for (unsigned i = 0; i < t_; ++i) first.lc.MergeScaled(st_[i].lc, sp.w[i]);
      for (unsigned j = 1; j < t_; ++j) st_[j].lc.MergeScaled(st_[0].lc, sp.v[j - 1]);
    }
    st_[0] = std::move(first);
  }

  CS& cs_;
  const PoseidonConstants& c_;
  const unsigned t_;
  std::array<Elt, kMaxPoseidonWidth> st_;
};

}  // namespace internal

// neptune poseidon_hash (legacy circuit) of preimage.size() allocated nums
// (arity 2, 4, 8 or 11) under `domain_tag`.
template <class CS>
r1cs::Variable PoseidonHash(CS& cs, std::span<const r1cs::Variable> preimage, const ff::Fr& domain_tag) {
  if (!IsSupportedPoseidonArity(unsigned(preimage.size()))) {
    throw std::invalid_argument("PoseidonHash: unsupported arity " + std::to_string(preimage.size()));
  }
  internal::PoseidonCircuit<CS> circuit(cs, GetPoseidonConstants(unsigned(preimage.size())));
  return circuit.Hash(preimage, domain_tag);
}

}  // namespace cuzk::snapdeals::gadgets
