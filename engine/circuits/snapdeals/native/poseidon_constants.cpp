#include "engine/circuits/snapdeals/native/poseidon_constants.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::snapdeals {
namespace {

using Matrix = PoseidonMatrix;
using Vector = std::vector<Fr>;

// R_P for R_F = 8, Strength::Standard (neptune round_numbers.rs for 128-bit security).
unsigned PartialRounds(unsigned width) {
  switch (width) {
    case 3: return 55;
    case 5: return 56;
    case 9: return 57;
    case 12: return 57;
    default: throw std::invalid_argument("Poseidon width " + std::to_string(width) + " is not supported");
  }
}

Matrix Identity(size_t n) {
  Matrix r{n, Vector(n * n)};
  for (size_t i = 0; i < n; ++i) r.at(i, i) = Fr::One();
  return r;
}

// Gauss-Jordan inverse; throws if singular (never for the matrices used here).
Matrix Invert(const Matrix& a) {
  size_t n = a.n;
  Matrix m = a, inv = Identity(n);
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    while (pivot < n && m.at(pivot, c).IsZero()) ++pivot;
    if (pivot == n) throw std::logic_error("Poseidon: singular matrix");
    if (pivot != c) {
      for (size_t j = 0; j < n; ++j) {
        std::swap(m.at(c, j), m.at(pivot, j));
        std::swap(inv.at(c, j), inv.at(pivot, j));
      }
    }
    Fr s = m.at(c, c).Inverse();
    for (size_t j = 0; j < n; ++j) {
      m.at(c, j) *= s;
      inv.at(c, j) *= s;
    }
    for (size_t r = 0; r < n; ++r) {
      if (r == c || m.at(r, c).IsZero()) continue;
      Fr f = m.at(r, c);
      for (size_t j = 0; j < n; ++j) {
        m.at(r, j) -= f * m.at(c, j);
        inv.at(r, j) -= f * inv.at(c, j);
      }
    }
  }
  return inv;
}

Matrix Multiply(const Matrix& a, const Matrix& b) {
  size_t n = a.n;
  Matrix r{n, Vector(n * n)};
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j) r.at(i, j) += a.at(i, k) * b.at(k, j);
  return r;
}

// Row vector times matrix: out[j] = sum_i v[i] * a[i][j] (neptune's apply_matrix
// on a row-state).
Vector RowTimes(const Vector& v, const Matrix& a) {
  Vector out(a.n);
  for (size_t i = 0; i < a.n; ++i)
    for (size_t j = 0; j < a.n; ++j) out[j] += v[i] * a.at(i, j);
  return out;
}

Matrix Minor00(const Matrix& a) {
  Matrix r{a.n - 1, Vector((a.n - 1) * (a.n - 1))};
  for (size_t i = 1; i < a.n; ++i)
    for (size_t j = 1; j < a.n; ++j) r.at(i - 1, j - 1) = a.at(i, j);
  return r;
}

// M'(X): row 0 = e_0, rows i >= 1 = (0, X[i][1..]).
Matrix MPrime(const Matrix& x) {
  Matrix r{x.n, Vector(x.n * x.n)};
  r.at(0, 0) = Fr::One();
  for (size_t i = 1; i < x.n; ++i)
    for (size_t j = 1; j < x.n; ++j) r.at(i, j) = x.at(i, j);
  return r;
}

// M''(X) in neptune's stored form: w = (X[0][0], w_hat), v = X[0][1..], with
// w_hat = w' * (X^)^-1, w' = (X[1][0] .. X[t-1][0]), X^ = X without row/column 0.
PoseidonSparseMatrix MDoublePrime(const Matrix& x) {
  Vector w_col(x.n - 1);
  for (size_t i = 1; i < x.n; ++i) w_col[i - 1] = x.at(i, 0);
  Vector w_hat = RowTimes(w_col, Invert(Minor00(x)));
  PoseidonSparseMatrix s;
  s.w.push_back(x.at(0, 0));
  s.w.insert(s.w.end(), w_hat.begin(), w_hat.end());
  for (size_t j = 1; j < x.n; ++j) s.v.push_back(x.at(0, j));
  return s;
}

// neptune preprocessing.rs compress_round_constants (spec 7.3).
Vector CompressRoundConstants(const PoseidonConstants& c) {
  const size_t t = c.width;
  const unsigned half = c.full_rounds / 2;
  auto row = [&](size_t r) {
    return Vector(c.round_constants.begin() + r * t, c.round_constants.begin() + (r + 1) * t);
  };
  Vector out = row(0);
  for (unsigned r = 1; r < half; ++r) {
    Vector v = RowTimes(row(r), c.mds_inverse);
    out.insert(out.end(), v.begin(), v.end());
  }
  // Partial rounds, walked backwards from the first round of the second full half:
  // each partial round's constant contribution to elements 1.. is pushed through
  // M^-1 into the round before, leaving one scalar (element 0) per partial round.
  const size_t first_terminal = half + c.partial_rounds;
  Vector acc = row(first_terminal);
  Vector partial_keys;
  for (unsigned i = 0; i < c.partial_rounds; ++i) {
    Vector inv = RowTimes(acc, c.mds_inverse);
    partial_keys.push_back(inv[0]);
    inv[0] = Fr::Zero();
    Vector prev = row(first_terminal - i - 1);
    for (size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
  }
  Vector last_full = RowTimes(acc, c.mds_inverse);
  out.insert(out.end(), last_full.begin(), last_full.end());
  out.insert(out.end(), partial_keys.rbegin(), partial_keys.rend());
  for (unsigned r = 1; r < half; ++r) {
    Vector v = RowTimes(row(first_terminal + r), c.mds_inverse);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

PoseidonConstants Build(unsigned arity) {
  PoseidonConstants c;
  c.arity = arity;
  c.width = arity + 1;
  c.partial_rounds = PartialRounds(c.width);
  const size_t t = c.width;
  c.round_constants =
      GrainRoundConstants(c.width, c.full_rounds, c.partial_rounds, (c.full_rounds + c.partial_rounds) * t);

  // Cauchy MDS, x_i = i, y_j = t + j: M[i][j] = 1 / (i + t + j).
  c.mds = Matrix{t, Vector(t * t)};
  for (size_t i = 0; i < t; ++i)
    for (size_t j = 0; j < t; ++j) c.mds.at(i, j) = Fr::FromUint64(i + t + j).Inverse();
  c.mds_inverse = Invert(c.mds);

  c.compressed_round_constants = CompressRoundConstants(c);

  // Sparse factorisation (neptune mds.rs factor_to_sparse_matrixes): X_0 = M,
  // S_i = M''(X_i), X_{i+1} = M * M'(X_i); pre-sparse = X_{R_P}; use in reverse.
  Matrix x = c.mds;
  std::vector<PoseidonSparseMatrix> sparse;
  for (unsigned i = 0; i < c.partial_rounds; ++i) {
    sparse.push_back(MDoublePrime(x));
    x = Multiply(c.mds, MPrime(x));
  }
  c.pre_sparse_matrix = x;
  c.sparse_matrices.assign(sparse.rbegin(), sparse.rend());
  return c;
}

}  // namespace

std::vector<Fr> GrainRoundConstants(unsigned width, unsigned full_rounds, unsigned partial_rounds, size_t count) {
  constexpr unsigned kFieldSize = 255;
  // 80-bit state, s_i at bit i of `state`; initial bits s_0.. are written
  // MSB-first per field: field = 1 (2 bits), sbox = 1 (4), field size (12),
  // t (12), R_F (10), R_P (10), thirty 1s.
  unsigned __int128 state = 0;
  unsigned pos = 0;
  auto append = [&](unsigned bits, uint64_t value) {
    for (unsigned i = bits; i-- > 0;) state |= (unsigned __int128)((value >> i) & 1) << pos++;
  };
  append(2, 1);
  append(4, 1);
  append(12, kFieldSize);
  append(12, width);
  append(10, full_rounds);
  append(10, partial_rounds);
  append(30, (uint64_t(1) << 30) - 1);
  auto next_bit = [&]() -> unsigned {
    auto bit = [&](unsigned i) { return unsigned(state >> i) & 1; };
    unsigned b = bit(62) ^ bit(51) ^ bit(38) ^ bit(23) ^ bit(13) ^ bit(0);
    state = (state >> 1) | ((unsigned __int128)b << 79);
    return b;
  };
  for (int i = 0; i < 160; ++i) next_bit();
  // Self-shrinking generator: of each pair, output the second bit iff the first is 1.
  auto shrunk_bit = [&]() -> unsigned {
    for (;;) {
      unsigned first = next_bit();
      unsigned second = next_bit();
      if (first) return second;
    }
  };
  std::vector<Fr> out;
  out.reserve(count);
  while (out.size() < count) {
    ff::Limbs<4> v{};
    for (unsigned i = kFieldSize; i-- > 0;) v[i / 64] |= uint64_t(shrunk_bit()) << (i % 64);
    if (auto f = Fr::FromCanonicalChecked(v)) out.push_back(*f);  // reject >= p
  }
  return out;
}

bool IsSupportedPoseidonArity(unsigned arity) { return arity == 2 || arity == 4 || arity == 8 || arity == 11; }

const PoseidonConstants& GetPoseidonConstants(unsigned arity) {
  // Function-local statics: built on first use, thread-safe by the C++ standard.
  switch (arity) {
    case 2: {
      static const PoseidonConstants c = Build(2);
      return c;
    }
    case 4: {
      static const PoseidonConstants c = Build(4);
      return c;
    }
    case 8: {
      static const PoseidonConstants c = Build(8);
      return c;
    }
    case 11: {
      static const PoseidonConstants c = Build(11);
      return c;
    }
    default: throw std::invalid_argument("Poseidon arity " + std::to_string(arity) + " is not supported (2, 4, 8, 11)");
  }
}

}  // namespace cuzk::snapdeals
