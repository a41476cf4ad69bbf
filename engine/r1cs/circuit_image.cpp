#include "engine/r1cs/circuit_image.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <future>
#include <type_traits>
#include <vector>

#include "engine/util/cache_arrays.hpp"
#include "engine/util/cache_file.hpp"

namespace cuzk::r1cs {
namespace {

constexpr std::string_view kKind = "r1cs-circuit/1";
static_assert(std::is_trivially_copyable_v<ff::Fr> && sizeof(ff::Fr) == 32, "Fr is its 4 Montgomery limbs");

struct Meta {
  uint64_t num_inputs, num_aux, rows;
  uint64_t nonzeros[3];
  uint64_t a_density_bits, b_density_bits;
};

using util::AddArraySection;
using util::ReadArraySection;

void AddMatrix(util::CacheWriter& w, const std::string& m, const CsrMatrix& csr) {
  AddArraySection(w, m + ".offsets", csr.row_offsets);
  AddArraySection(w, m + ".columns", csr.columns);
  AddArraySection(w, m + ".values", csr.values);
}

// The matrix's three sections at the same time, each on `threads` reading
// threads: sizing a section's vector is a one-thread pass over it, so three
// run side by side instead of one after another (values, 32 bytes a nonzero,
// is most of the image). Checked once all three are in.
CsrMatrix ReadMatrix(const util::CacheReader& r, const std::string& m, uint64_t rows, uint64_t nonzeros,
                     uint64_t variables, unsigned threads) {
  CsrMatrix csr;
  std::atomic<bool> unsorted{false}, past_end{false};
  auto offsets = std::async(std::launch::async, [&] {
    ReadArraySection(r, m + ".offsets", rows + 1, threads, csr.row_offsets,
                     [&](size_t, std::span<const uint64_t> part) {
                       if (!std::is_sorted(part.begin(), part.end())) unsorted = true;
                     });
  });
  auto columns = std::async(std::launch::async, [&] {
    ReadArraySection(r, m + ".columns", nonzeros, threads, csr.columns, [&](size_t, std::span<const uint32_t> part) {
      for (uint32_t c : part) {
        if (c >= variables) past_end = true;
      }
    });
  });
  auto values = std::async(std::launch::async, [&] {
    ReadArraySection(r, m + ".values", nonzeros, threads, csr.values, [](size_t, std::span<const ff::Fr>) {});
  });
  // Every future waited for before the first failure is rethrown: they write into csr.
  std::exception_ptr failed;
  for (auto* part : {&offsets, &columns, &values}) {
    try {
      part->get();
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
  // Chunk edges and the ends: the offsets rise from 0 to the nonzero count.
  for (size_t i = util::kCacheChunkBytes / 8; i < csr.row_offsets.size(); i += util::kCacheChunkBytes / 8) {
    if (csr.row_offsets[i - 1] > csr.row_offsets[i]) unsorted = true;
  }
  if (unsorted || csr.row_offsets.front() != 0 || csr.row_offsets.back() != nonzeros) {
    throw util::CacheError(r.path() + ": matrix " + m + " has inconsistent row offsets");
  }
  if (past_end) throw util::CacheError(r.path() + ": matrix " + m + " names a variable past the circuit's");
  return csr;
}

msm::DensityBitmap ReadDensity(const util::CacheReader& r, const std::string& name, uint64_t bits) {
  std::vector<uint64_t> words;
  ReadArraySection(r, name, (bits + 63) / 64, 1, words, [](size_t, std::span<const uint64_t>) {});
  return msm::DensityBitmap::FromWords(std::move(words), static_cast<size_t>(bits));
}

// The image's counts, checked against each other.
Meta ReadMeta(const util::CacheReader& r) {
  const Meta meta = util::ReadRecordSection<Meta>(r, "meta");
  const uint64_t variables = meta.num_inputs + meta.num_aux;
  if (meta.num_inputs == 0 || variables < meta.num_inputs || variables > (uint64_t(1) << 32) ||
      meta.a_density_bits != variables || meta.b_density_bits != variables) {
    throw util::CacheError(r.path() + ": inconsistent circuit sizes");
  }
  return meta;
}

// A matrix's arrays sized from the image without being read; their first
// and last elements read (not digest-checked).
CsrMatrix MatrixShell(const util::CacheReader& r, const std::string& m, uint64_t rows, uint64_t nonzeros) {
  if (rows >= (uint64_t(1) << 40) || nonzeros >= (uint64_t(1) << 40)) {  // the sizes below cannot overflow
    throw util::CacheError(r.path() + ": matrix " + m + " has impossible sizes");
  }
  const struct {
    const char* part;
    uint64_t bytes;
  } sizes[] = {{".offsets", (rows + 1) * sizeof(uint64_t)},
               {".columns", nonzeros * sizeof(uint32_t)},
               {".values", nonzeros * sizeof(ff::Fr)}};
  for (const auto& [part, want] : sizes) {
    if (r.Section(m + part).bytes != want) {
      throw util::CacheError(r.path() + ": section " + m + part + " is not " + std::to_string(want) + " bytes");
    }
  }
  CsrMatrix csr;
  csr.row_offsets.resize(size_t(rows + 1));
  csr.row_offsets.front() = 0;
  csr.row_offsets.back() = nonzeros;
  csr.columns.resize(size_t(nonzeros));
  csr.values.resize(size_t(nonzeros));
  if (nonzeros == 0) return csr;
  for (uint64_t i : {uint64_t(0), nonzeros - 1}) {
    r.ReadUnchecked(m + ".columns", i * 4, {reinterpret_cast<uint8_t*>(&csr.columns[size_t(i)]), 4});
    r.ReadUnchecked(m + ".values", i * 32, {reinterpret_cast<uint8_t*>(&csr.values[size_t(i)]), 32});
  }
  return csr;
}

}  // namespace

uint64_t CircuitImageSource(std::string_view circuit_id) {
  const std::string text = std::string(circuit_id) + "\n" + std::string(CircuitCompilerDigest());
  return util::Digest64({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, 0x72316373);
}

uint64_t WriteCircuitImage(const CompiledCircuit& circuit, const std::string& path, uint64_t source,
                           const std::atomic<bool>* cancel) {
  util::CacheWriter w(path, kKind, source, cancel);
  const Meta meta{circuit.num_inputs,        circuit.num_aux,
                  circuit.num_constraints(), {circuit.a.nonzeros(), circuit.b.nonzeros(), circuit.c.nonzeros()},
                  circuit.a_density.size(),  circuit.b_density.size()};
  util::AddRecordSection(w, "meta", meta);
  AddMatrix(w, "a", circuit.a);
  AddMatrix(w, "b", circuit.b);
  AddMatrix(w, "c", circuit.c);
  AddArraySection(w, "a_density", circuit.a_density.words());
  AddArraySection(w, "b_density", circuit.b_density.words());
  w.Commit();
  return w.bytes_written();
}

CircuitImageCounts ReadCircuitImageCounts(const std::string& path, uint64_t source) {
  util::CacheReader r(path, kKind, source);
  const Meta meta = ReadMeta(r);
  return {.num_inputs = meta.num_inputs, .num_aux = meta.num_aux, .constraints = meta.rows};
}

CompiledCircuit ReadCircuitImageShell(const std::string& path, uint64_t source) {
  util::CacheReader r(path, kKind, source);
  const Meta meta = ReadMeta(r);
  CompiledCircuit c;
  c.num_inputs = meta.num_inputs;
  c.num_aux = meta.num_aux;
  c.a = MatrixShell(r, "a", meta.rows, meta.nonzeros[0]);
  c.b = MatrixShell(r, "b", meta.rows, meta.nonzeros[1]);
  c.c = MatrixShell(r, "c", meta.rows, meta.nonzeros[2]);
  c.a_density = ReadDensity(r, "a_density", meta.a_density_bits);
  c.b_density = ReadDensity(r, "b_density", meta.b_density_bits);
  return c;
}

CompiledCircuit ReadCircuitImage(const std::string& path, uint64_t source, unsigned threads) {
  util::CacheReader r(path, kKind, source);
  const Meta meta = ReadMeta(r);
  const uint64_t variables = meta.num_inputs + meta.num_aux;
  CompiledCircuit c;
  c.num_inputs = meta.num_inputs;
  c.num_aux = meta.num_aux;
  // The three matrices at the same time (as the key image's sections: sizing
  // each vector is a one-thread pass).
  auto matrix = [&](const char* name, uint64_t nonzeros, CsrMatrix& out) {
    return std::async(std::launch::async, [&r, name, rows = meta.rows, nonzeros, variables, threads, &out] {
      out = ReadMatrix(r, name, rows, nonzeros, variables, threads);
    });
  };
  std::future<void> parts[] = {matrix("a", meta.nonzeros[0], c.a), matrix("b", meta.nonzeros[1], c.b),
                               matrix("c", meta.nonzeros[2], c.c)};
  for (auto& part : parts) part.get();
  c.a_density = ReadDensity(r, "a_density", meta.a_density_bits);
  c.b_density = ReadDensity(r, "b_density", meta.b_density_bits);
  return c;
}

}  // namespace cuzk::r1cs
