#include "engine/r1cs/compact_circuit.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "engine/util/parallel.hpp"

namespace cuzk::r1cs {

using ff::Fr;

namespace {

struct FrHash {
  size_t operator()(const Fr& x) const {
    const auto& l = x.Montgomery();
    return size_t(l[0] ^ (l[1] * 0x9e3779b97f4a7c15ull) ^ (l[2] >> 7) ^ (l[3] << 13));
  }
};
using CountMap = std::unordered_map<Fr, uint64_t, FrHash>;
using CodeMap = std::unordered_map<Fr, uint16_t, FrHash>;

unsigned Chunks(size_t n, unsigned threads) { return n < (size_t(1) << 16) ? 1 : util::ResolveThreads(threads); }

// How often each value occurs in the three matrices (per-thread maps, merged).
CountMap CountValues(const CompiledCircuit& circuit, unsigned threads) {
  CountMap total;
  for (const CsrMatrix* m : {&circuit.a, &circuit.b, &circuit.c}) {
    const size_t n = m->nonzeros();
    const unsigned chunks = Chunks(n, threads);
    std::vector<CountMap> parts(chunks);
    util::ParallelForChunks(n, chunks, [&](size_t begin, size_t end, size_t t) {
      for (size_t k = begin; k < end; ++k) ++parts[t][m->values[k]];
    });
    for (const CountMap& p : parts) {
      for (const auto& [v, count] : p) total[v] += count;
    }
  }
  return total;
}

// [0] = 1, [1] = -1, then by falling count (ties by limbs: the table does not
// depend on hash order), at most max_table entries.
std::vector<Fr> BuildTable(const CountMap& counts, size_t max_table) {
  std::vector<std::pair<uint64_t, Fr>> by_count;
  for (const auto& [v, count] : counts) {
    if (v != Fr::One() && v != -Fr::One()) by_count.emplace_back(count, v);
  }
  std::sort(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first > y.first;
    return x.second.Montgomery() < y.second.Montgomery();
  });
  std::vector<Fr> table = {Fr::One(), -Fr::One()};
  for (const auto& [count, v] : by_count) {
    if (table.size() >= max_table) break;
    table.push_back(v);
  }
  return table;
}

CompactMatrix CompactOne(const CsrMatrix& m, const CodeMap& codes, unsigned threads, const char* name) {
  const size_t n = m.nonzeros();
  if (n > UINT32_MAX) {
    throw std::length_error(std::string("Compact: matrix ") + name + " has " + std::to_string(n) +
                            " nonzeros; 32-bit row offsets hold fewer than 2^32");
  }
  CompactMatrix out;
  out.row_offsets.resize(m.row_offsets.size());
  for (size_t r = 0; r < m.row_offsets.size(); ++r) out.row_offsets[r] = uint32_t(m.row_offsets[r]);
  out.columns.assign(m.columns.begin(), m.columns.end());
  out.codes.resize(n);
  const unsigned chunks = Chunks(n, threads);
  std::vector<std::vector<uint32_t>> positions(chunks);
  std::vector<std::vector<Fr>> values(chunks);
  util::ParallelForChunks(n, chunks, [&](size_t begin, size_t end, size_t t) {
    for (size_t k = begin; k < end; ++k) {
      auto it = codes.find(m.values[k]);
      if (it != codes.end()) {
        out.codes[k] = it->second;
      } else {
        out.codes[k] = kEscapeCode;
        positions[t].push_back(uint32_t(k));
        values[t].push_back(m.values[k]);
      }
    }
  });
  for (unsigned t = 0; t < chunks; ++t) {  // chunks are in order, so the positions ascend
    out.escape_positions.insert(out.escape_positions.end(), positions[t].begin(), positions[t].end());
    out.escape_values.insert(out.escape_values.end(), values[t].begin(), values[t].end());
  }
  return out;
}

}  // namespace

size_t CompactMatrix::Bytes() const {
  return row_offsets.size() * sizeof(uint32_t) + columns.size() * sizeof(uint32_t) + codes.size() * sizeof(uint16_t) +
         escape_positions.size() * sizeof(uint32_t) + escape_values.size() * sizeof(Fr);
}

size_t CompactCircuit::Bytes() const { return coefficients.size() * sizeof(Fr) + a.Bytes() + b.Bytes() + c.Bytes(); }

CompactCircuit Compact(const CompiledCircuit& circuit, const CompactOptions& options) {
  if (options.max_table < 2 || options.max_table > kMaxCoefficientTable) {
    throw std::invalid_argument("Compact: max_table " + std::to_string(options.max_table) + " outside 2.." +
                                std::to_string(kMaxCoefficientTable));
  }
  if (circuit.b.rows() != circuit.a.rows() || circuit.c.rows() != circuit.a.rows()) {
    throw std::invalid_argument("Compact: A, B, C have " + std::to_string(circuit.a.rows()) + "/" +
                                std::to_string(circuit.b.rows()) + "/" + std::to_string(circuit.c.rows()) + " rows");
  }
  CompactCircuit out;
  out.num_inputs = circuit.num_inputs;
  out.num_aux = circuit.num_aux;
  out.coefficients = BuildTable(CountValues(circuit, options.threads), options.max_table);
  CodeMap codes;
  for (size_t i = 0; i < out.coefficients.size(); ++i) codes.emplace(out.coefficients[i], uint16_t(i));
  out.a = CompactOne(circuit.a, codes, options.threads, "A");
  out.b = CompactOne(circuit.b, codes, options.threads, "B");
  out.c = CompactOne(circuit.c, codes, options.threads, "C");
  return out;
}

Fr CoefficientAt(const CompactCircuit& circuit, const CompactMatrix& m, uint64_t k) {
  const uint16_t code = m.codes.at(k);
  if (code != kEscapeCode) return circuit.coefficients.at(code);
  auto it = std::lower_bound(m.escape_positions.begin(), m.escape_positions.end(), uint32_t(k));
  if (it == m.escape_positions.end() || *it != k) {
    throw std::logic_error("CoefficientAt: nonzero " + std::to_string(k) + " escapes but is not in the escape list");
  }
  return m.escape_values[size_t(it - m.escape_positions.begin())];
}

CsrMatrix Expand(const CompactCircuit& circuit, const CompactMatrix& m) {
  CsrMatrix out;
  out.row_offsets.assign(m.row_offsets.begin(), m.row_offsets.end());
  out.columns.assign(m.columns.begin(), m.columns.end());
  out.values.resize(m.nonzeros());  // every coefficient written below
  for (size_t k = 0; k < m.nonzeros(); ++k) out.values[k] = CoefficientAt(circuit, m, k);
  return out;
}

}  // namespace cuzk::r1cs
