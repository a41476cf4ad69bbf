#include "engine/r1cs/compact_image.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "engine/util/cache_arrays.hpp"
#include "engine/util/cache_file.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::r1cs {
namespace {

using ff::Fr;
using util::CacheError;

// Bump on any change of what a code or section means: an image of another
// version is then stale, never misread.
constexpr std::string_view kKind = "r1cs-compact/1";

struct Meta {
  uint64_t num_inputs, num_aux, rows, table;
  uint64_t nonzeros[3], escapes[3];
};

void AddMatrix(util::CacheWriter& w, const std::string& m, const CompactMatrix& cm) {
  util::AddArraySection(w, m + ".offsets", cm.row_offsets);
  util::AddArraySection(w, m + ".columns", cm.columns);
  util::AddArraySection(w, m + ".codes", cm.codes);
  util::AddArraySection(w, m + ".esc_pos", cm.escape_positions);
  util::AddArraySection(w, m + ".esc_val", cm.escape_values);
}

// Reads one matrix and checks what the kernel relies on to stay in bounds:
// offsets rise from 0 to the nonzero count, columns name variables, codes
// index the table or escape, and the escape list names exactly the escaped
// nonzeros in ascending order (EscapeValue's binary search).
CompactMatrix ReadMatrix(const util::CacheReader& r, const std::string& m, uint64_t rows, uint64_t nonzeros,
                         uint64_t escapes, uint64_t variables, uint64_t table, unsigned threads) {
  const std::string where = r.path() + ": matrix " + m;
  CompactMatrix cm;
  std::atomic<bool> bad{false};
  std::atomic<uint64_t> escaped{0};
  util::ReadArraySection(r, m + ".offsets", rows + 1, threads, cm.row_offsets,
                         [&](size_t, std::span<const uint32_t> part) {
                           if (!std::is_sorted(part.begin(), part.end())) bad = true;
                         });
  for (size_t i = util::kCacheChunkBytes / 4; i < cm.row_offsets.size(); i += util::kCacheChunkBytes / 4) {
    if (cm.row_offsets[i - 1] > cm.row_offsets[i]) bad = true;
  }
  if (bad || cm.row_offsets.front() != 0 || cm.row_offsets.back() != nonzeros) {
    throw CacheError(where + " has inconsistent row offsets");
  }
  util::ReadArraySection(r, m + ".columns", nonzeros, threads, cm.columns, [&](size_t, std::span<const uint32_t> part) {
    for (uint32_t c : part) {
      if (c >= variables) bad = true;
    }
  });
  if (bad) throw CacheError(where + " names a variable past the circuit's");
  util::ReadArraySection(r, m + ".codes", nonzeros, threads, cm.codes, [&](size_t, std::span<const uint16_t> part) {
    uint64_t n = 0;
    for (uint16_t code : part) {
      if (code == kEscapeCode) {
        ++n;
      } else if (code >= table) {
        bad = true;
      }
    }
    escaped += n;
  });
  if (bad) throw CacheError(where + " has a code past its coefficient table");
  if (escaped != escapes) throw CacheError(where + ": escape codes and escape list differ in count");
  util::ReadArraySection(r, m + ".esc_pos", escapes, 1, cm.escape_positions, [](size_t, std::span<const uint32_t>) {});
  for (size_t i = 0; i < cm.escape_positions.size(); ++i) {
    const uint32_t k = cm.escape_positions[i];
    if (k >= nonzeros || cm.codes[k] != kEscapeCode || (i > 0 && cm.escape_positions[i - 1] >= k)) {
      throw CacheError(where + ": escape list does not name the escaped nonzeros in order");
    }
  }
  util::ReadArraySection(r, m + ".esc_val", escapes, 1, cm.escape_values, [](size_t, std::span<const Fr>) {});
  return cm;
}

// Nonzeros [begin, end) of one matrix against the CSR's: column and the
// coefficient as the kernel reads it (r1cs_steps::RowDot). `esc` is the
// first escape at or after `begin`.
bool SameNonzeros(const CompactCircuit& cc, const CompactMatrix& m, const CsrMatrix& csr, size_t begin, size_t end) {
  size_t esc = size_t(std::lower_bound(m.escape_positions.begin(), m.escape_positions.end(), uint32_t(begin)) -
                      m.escape_positions.begin());
  for (size_t k = begin; k < end; ++k) {
    if (m.columns[k] != csr.columns[k]) return false;
    const uint16_t code = m.codes[k];
    Fr coef;
    if (code == kCoefficientOne) {
      coef = Fr::One();
    } else if (code == kCoefficientMinusOne) {
      coef = -Fr::One();
    } else if (code == kEscapeCode) {
      if (esc >= m.escape_positions.size() || m.escape_positions[esc] != k) return false;
      coef = m.escape_values[esc++];
    } else {
      coef = cc.coefficients[code];
    }
    if (coef != csr.values[k]) return false;
  }
  return true;
}

void CheckMatrix(const CompactCircuit& cc, const CompactMatrix& m, const CsrMatrix& csr, const char* name,
                 unsigned threads) {
  const std::string what = std::string("compact circuit: matrix ") + name;
  if (m.rows() != csr.rows() || m.nonzeros() != csr.nonzeros()) {
    throw CacheError(what + " has " + std::to_string(m.rows()) + " rows and " + std::to_string(m.nonzeros()) +
                     " nonzeros, the circuit " + std::to_string(csr.rows()) + " and " + std::to_string(csr.nonzeros()));
  }
  std::atomic<bool> same{true};
  util::ParallelForChunks(m.row_offsets.size(), threads, [&](size_t begin, size_t end, size_t) {
    for (size_t i = begin; i < end && same; ++i) {
      if (m.row_offsets[i] != csr.row_offsets[i]) same = false;
    }
  });
  if (!same) throw CacheError(what + ": row offsets differ from the circuit's");
  util::ParallelForChunks(m.nonzeros(), threads, [&](size_t begin, size_t end, size_t) {
    if (same && !SameNonzeros(cc, m, csr, begin, end)) same = false;
  });
  if (!same) throw CacheError(what + ": a column or coefficient differs from the circuit's");
}

}  // namespace

uint64_t WriteCompactImage(const CompactCircuit& circuit, const std::string& path, uint64_t source,
                           const std::atomic<bool>* cancel) {
  util::CacheWriter w(path, kKind, source, cancel);
  const Meta meta{
      circuit.num_inputs,
      circuit.num_aux,
      circuit.num_constraints(),
      circuit.coefficients.size(),
      {circuit.a.nonzeros(), circuit.b.nonzeros(), circuit.c.nonzeros()},
      {circuit.a.escape_positions.size(), circuit.b.escape_positions.size(), circuit.c.escape_positions.size()}};
  util::AddRecordSection(w, "meta", meta);
  util::AddArraySection(w, "table", circuit.coefficients);
  AddMatrix(w, "a", circuit.a);
  AddMatrix(w, "b", circuit.b);
  AddMatrix(w, "c", circuit.c);
  w.Commit();
  return w.bytes_written();
}

CompactCircuit ReadCompactImage(const std::string& path, uint64_t source, unsigned threads) {
  util::CacheReader r(path, kKind, source);
  const Meta meta = util::ReadRecordSection<Meta>(r, "meta");
  const uint64_t variables = meta.num_inputs + meta.num_aux;
  if (meta.num_inputs == 0 || variables < meta.num_inputs || variables > (uint64_t(1) << 32) || meta.table < 2 ||
      meta.table > kMaxCoefficientTable || meta.rows >= (uint64_t(1) << 32)) {
    throw CacheError(path + ": inconsistent compact circuit sizes");
  }
  for (int k = 0; k < 3; ++k) {
    if (meta.nonzeros[k] > UINT32_MAX || meta.escapes[k] > meta.nonzeros[k]) {
      throw CacheError(path + ": inconsistent compact circuit sizes");
    }
  }
  CompactCircuit cc;
  cc.num_inputs = meta.num_inputs;
  cc.num_aux = meta.num_aux;
  util::ReadArraySection(r, "table", meta.table, 1, cc.coefficients, [](size_t, std::span<const Fr>) {});
  // The kernel adds and subtracts for codes 0 and 1 without reading the table.
  if (cc.coefficients[0] != Fr::One() || cc.coefficients[1] != -Fr::One()) {
    throw CacheError(path + ": coefficient table does not start with 1, -1");
  }
  auto matrix = [&](const char* name, int k, CompactMatrix& out) {
    return std::async(std::launch::async, [&r, name, k, &meta, variables, threads, &out] {
      out = ReadMatrix(r, name, meta.rows, meta.nonzeros[k], meta.escapes[k], variables, meta.table, threads);
    });
  };
  std::future<void> parts[] = {matrix("a", 0, cc.a), matrix("b", 1, cc.b), matrix("c", 2, cc.c)};
  for (auto& part : parts) part.get();
  return cc;
}

namespace {

void CheckVariableCounts(const CompactCircuit& compact, const CompiledCircuit& circuit) {
  if (compact.num_inputs != circuit.num_inputs || compact.num_aux != circuit.num_aux) {
    throw CacheError("compact circuit: " + std::to_string(compact.num_inputs) + " inputs and " +
                     std::to_string(compact.num_aux) + " aux, the circuit " + std::to_string(circuit.num_inputs) +
                     " and " + std::to_string(circuit.num_aux));
  }
}

}  // namespace

void CheckCompactDescribes(const CompactCircuit& compact, const CompiledCircuit& circuit, unsigned threads) {
  CheckVariableCounts(compact, circuit);
  if (compact.coefficients.size() < 2 || compact.coefficients[0] != Fr::One() ||
      compact.coefficients[1] != -Fr::One()) {
    throw CacheError("compact circuit: coefficient table does not start with 1, -1");
  }
  CheckMatrix(compact, compact.a, circuit.a, "A", threads);
  CheckMatrix(compact, compact.b, circuit.b, "B", threads);
  CheckMatrix(compact, compact.c, circuit.c, "C", threads);
}

void CheckCompactShape(const CompactCircuit& compact, const CompiledCircuit& circuit) {
  CheckVariableCounts(compact, circuit);
  const CompactMatrix* cm[] = {&compact.a, &compact.b, &compact.c};
  const CsrMatrix* m[] = {&circuit.a, &circuit.b, &circuit.c};
  for (int k = 0; k < 3; ++k) {
    const char* name = k == 0 ? "A" : k == 1 ? "B" : "C";
    if (cm[k]->rows() != m[k]->rows() || cm[k]->nonzeros() != m[k]->nonzeros()) {
      throw CacheError(std::string("compact circuit: matrix ") + name + " has " + std::to_string(cm[k]->rows()) +
                       " rows and " + std::to_string(cm[k]->nonzeros()) + " nonzeros, the circuit " +
                       std::to_string(m[k]->rows()) + " and " + std::to_string(m[k]->nonzeros()));
    }
    if (m[k]->nonzeros() > 0 &&
        (cm[k]->columns.front() != m[k]->columns.front() || cm[k]->columns.back() != m[k]->columns.back())) {
      throw CacheError(std::string("compact circuit: matrix ") + name + "'s first or last column differs");
    }
  }
}

}  // namespace cuzk::r1cs
