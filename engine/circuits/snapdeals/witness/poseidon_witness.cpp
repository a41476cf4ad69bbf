#include "engine/circuits/snapdeals/witness/poseidon_witness.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "engine/circuits/snapdeals/native/poseidon_constants.hpp"

namespace cuzk::snapdeals::witness {
namespace {

using ff::Fr;
constexpr size_t kMaxWidth = 12;
using State = std::array<Fr, kMaxWidth>;

void MulRow(State& s, const PoseidonMatrix& m) {
  State out{};
  for (size_t i = 0; i < m.n; ++i) {
    const Fr si = s[i];
    const Fr* row = &m.m[i * m.n];
    for (size_t j = 0; j < m.n; ++j) out[j] += si * row[j];
  }
  s = out;
}

// A later S-box: writes x, x^2, x^4, x^5 + post.
inline Fr SBox(const Fr& x, const Fr* post, Fr*& out) {
  const Fr x2 = x.Square(), x4 = x2.Square();
  Fr r = x * x4;
  if (post) r += *post;
  out[0] = x;
  out[1] = x2;
  out[2] = x4;
  out[3] = r;
  out += 4;
  return r;
}

}  // namespace

Fr PoseidonWitness(std::span<const Fr> preimage, const Fr& tag, Fr* out) {
  if (!IsSupportedPoseidonArity(unsigned(preimage.size()))) {
    throw std::invalid_argument("PoseidonWitness: unsupported arity " + std::to_string(preimage.size()));
  }
  const PoseidonConstants& c = GetPoseidonConstants(unsigned(preimage.size()));
  const unsigned t = c.width, half = c.full_rounds / 2;
  const Fr* k = c.compressed_round_constants.data();
  State s{};
  {
    Fr x = tag + k[0];
    s[0] = x.Square().Square() * x + k[t];  // a constant: nothing allocated
  }
  for (unsigned i = 1; i < t; ++i) {
    const Fr x = preimage[i - 1] + k[i];
    const Fr x2 = x.Square(), x4 = x2.Square();
    s[i] = x * x4 + k[t + i];
    out[0] = x2;
    out[1] = x4;
    out[2] = s[i];
    out += 3;
  }
  k += 2 * t;
  MulRow(s, c.mds);
  for (unsigned r = 1; r < half; ++r, k += t) {
    for (unsigned i = 0; i < t; ++i) s[i] = SBox(s[i], &k[i], out);
    MulRow(s, r + 1 == half ? c.pre_sparse_matrix : c.mds);
  }
  for (unsigned r = 0; r < c.partial_rounds; ++r) {
    s[0] = SBox(s[0], k++, out);
    const PoseidonSparseMatrix& sp = c.sparse_matrices[r];
    const Fr s0 = s[0];
    Fr acc = s0 * sp.w[0];
    for (unsigned j = 1; j < t; ++j) {
      acc += s[j] * sp.w[j];
      s[j] += s0 * sp.v[j - 1];
    }
    s[0] = acc;
  }
  for (unsigned r = 1; r < half; ++r, k += t) {
    for (unsigned i = 0; i < t; ++i) s[i] = SBox(s[i], &k[i], out);
    MulRow(s, c.mds);
  }
  for (unsigned i = 0; i < t; ++i) s[i] = SBox(s[i], nullptr, out);
  MulRow(s, c.mds);
  *out = s[1];
  return s[1];
}

}  // namespace cuzk::snapdeals::witness
