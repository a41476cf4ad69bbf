#include "engine/circuits/snapdeals/native/poseidon.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace cuzk::snapdeals {
namespace {

constexpr size_t kMaxWidth = 12;
using State = std::array<Fr, kMaxWidth>;

inline Fr Quintic(const Fr& x) {
  Fr x2 = x.Square();
  return x2.Square() * x;
}

// s = s * A (row vector times matrix; M is symmetric, so also M * s).
inline void MulRow(State& s, const PoseidonMatrix& a) {
  State out{};
  const size_t n = a.n;
  for (size_t i = 0; i < n; ++i) {
    const Fr si = s[i];
    const Fr* row = &a.m[i * n];
    for (size_t j = 0; j < n; ++j) out[j] += si * row[j];
  }
  s = out;
}

const PoseidonConstants& ConstantsFor(std::span<const Fr> preimage) {
  if (!IsSupportedPoseidonArity(unsigned(preimage.size()))) {
    throw std::invalid_argument("Poseidon: preimage of " + std::to_string(preimage.size()) +
                                " elements (supported arities: 2, 4, 8, 11)");
  }
  return GetPoseidonConstants(unsigned(preimage.size()));
}

State InitialState(std::span<const Fr> preimage, const Fr& tag) {
  State s{};
  s[0] = tag;
  for (size_t i = 0; i < preimage.size(); ++i) s[i + 1] = preimage[i];
  return s;
}

}  // namespace

Fr MerkleTreeTag(unsigned arity) { return Fr::FromUint64((uint64_t(1) << arity) - 1); }

Fr CustomTag(uint64_t id) {
  if (id >= (uint64_t(1) << 24)) throw std::invalid_argument("Poseidon custom tag id too large");
  return Fr::FromUint64(id << 40);
}

Fr GenRandomness(const Fr& a, const Fr& b) {
  static const Fr kTag = CustomTag(1);
  const Fr in[2] = {a, b};
  return PoseidonHash(in, kTag);
}

Fr PoseidonHashReference(std::span<const Fr> preimage, const Fr& domain_tag) {
  const PoseidonConstants& c = ConstantsFor(preimage);
  const size_t t = c.width;
  const unsigned half = c.full_rounds / 2;
  State s = InitialState(preimage, domain_tag);
  const Fr* rc = c.round_constants.data();
  for (unsigned r = 0; r < c.full_rounds + c.partial_rounds; ++r, rc += t) {
    for (size_t i = 0; i < t; ++i) s[i] += rc[i];
    bool full = r < half || r >= half + c.partial_rounds;
    for (size_t i = 0; i < (full ? t : 1); ++i) s[i] = Quintic(s[i]);
    MulRow(s, c.mds);
  }
  return s[1];
}

Fr PoseidonHash(std::span<const Fr> preimage, const Fr& domain_tag) {
  const PoseidonConstants& c = ConstantsFor(preimage);
  const size_t t = c.width;
  const unsigned half = c.full_rounds / 2;
  State s = InitialState(preimage, domain_tag);
  const Fr* k = c.compressed_round_constants.data();

  // Round 0: add the round-0 constants before the S-box, the (M^-1-adjusted)
  // round-1 constants after it.
  for (size_t i = 0; i < t; ++i) s[i] = Quintic(s[i] + k[i]) + k[t + i];
  k += 2 * t;
  MulRow(s, c.mds);
  // Rounds 1 .. half-1; the last of them mixes with the pre-sparse matrix.
  for (unsigned r = 1; r < half; ++r, k += t) {
    for (size_t i = 0; i < t; ++i) s[i] = Quintic(s[i]) + k[i];
    MulRow(s, r + 1 == half ? c.pre_sparse_matrix : c.mds);
  }
  // Partial rounds: one S-box, one scalar constant, a sparse matrix (2t - 1 mults).
  for (unsigned r = 0; r < c.partial_rounds; ++r) {
    s[0] = Quintic(s[0]) + *k++;
    const PoseidonSparseMatrix& sp = c.sparse_matrices[r];
    Fr s0 = s[0];
    Fr acc = s0 * sp.w[0];
    for (size_t j = 1; j < t; ++j) {
      acc += s[j] * sp.w[j];
      s[j] += s0 * sp.v[j - 1];
    }
    s[0] = acc;
  }
  // Second full half: half-1 rounds with constants, then the terminal round without.
  for (unsigned r = 1; r < half; ++r, k += t) {
    for (size_t i = 0; i < t; ++i) s[i] = Quintic(s[i]) + k[i];
    MulRow(s, c.mds);
  }
  for (size_t i = 0; i < t; ++i) s[i] = Quintic(s[i]);
  MulRow(s, c.mds);
  return s[1];
}

}  // namespace cuzk::snapdeals
