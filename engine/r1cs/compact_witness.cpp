#include "engine/r1cs/compact_witness.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "engine/util/parallel.hpp"

namespace cuzk::r1cs {

using ff::Fr;

namespace {

WitnessClass Classify(const Fr& x) {
  if (x.IsZero()) return WitnessClass::kZero;
  if (x.IsOne()) return WitnessClass::kOne;
  return WitnessClass::kOther;
}

}  // namespace

CompactWitness CompactWitnessOf(std::span<const Fr> z, unsigned threads) {
  using W = CompactWitness;
  CompactWitness w;
  const uint64_t n = z.size();
  w.num_variables = n;
  const size_t chunks = (n + W::kChunkVariables - 1) / W::kChunkVariables;
  w.classes.assign((n + W::kVariablesPerWord - 1) / W::kVariablesPerWord, 0);
  w.chunk_others.assign(chunks, 0);
  const unsigned workers = n < (uint64_t(1) << 16) ? 1 : util::ResolveThreads(threads);
  // Pass 1: classes and the count of "other" values per chunk (each chunk's
  // words belong to one worker: whole chunks per worker).
  util::ParallelForChunks(chunks, workers, [&](size_t cb, size_t ce, size_t) {
    for (size_t ch = cb; ch < ce; ++ch) {
      uint32_t others = 0;
      const uint64_t vb = ch * W::kChunkVariables, ve = std::min<uint64_t>(n, vb + W::kChunkVariables);
      for (uint64_t v = vb; v < ve; ++v) {
        const WitnessClass c = Classify(z[v]);
        w.classes[v / W::kVariablesPerWord] |= uint32_t(c) << (2 * (v % W::kVariablesPerWord));
        others += c == WitnessClass::kOther;
      }
      w.chunk_others[ch] = others;
    }
  });
  // Exclusive prefix sum over chunks (n / 256 words: sequential is cheap).
  uint64_t total = 0;
  for (size_t ch = 0; ch < chunks; ++ch) {
    const uint32_t c = w.chunk_others[ch];
    w.chunk_others[ch] = uint32_t(total);
    total += c;
    if (total > UINT32_MAX) {
      throw std::length_error("CompactWitnessOf: " + std::to_string(total) +
                              "+ values other than 0 and 1; ranks are 32-bit");
    }
  }
  // Pass 2: the other values, each chunk from its base.
  w.others.resize(total);
  util::ParallelForChunks(chunks, workers, [&](size_t cb, size_t ce, size_t) {
    for (size_t ch = cb; ch < ce; ++ch) {
      size_t at = w.chunk_others[ch];
      const uint64_t vb = ch * W::kChunkVariables, ve = std::min<uint64_t>(n, vb + W::kChunkVariables);
      for (uint64_t v = vb; v < ve; ++v) {
        if (ClassOf(w, v) == WitnessClass::kOther) w.others[at++] = z[v];
      }
    }
  });
  return w;
}

void CheckCompactWitness(const CompactWitness& w) {
  using W = CompactWitness;
  auto fail = [](const std::string& what) { throw std::invalid_argument("compact witness: " + what); };
  const uint64_t n = w.num_variables;
  const uint64_t words = (n + W::kVariablesPerWord - 1) / W::kVariablesPerWord;
  const uint64_t chunks = (n + W::kChunkVariables - 1) / W::kChunkVariables;
  if (w.classes.size() != words || w.chunk_others.size() != chunks) {
    fail(std::to_string(w.classes.size()) + " class words and " + std::to_string(w.chunk_others.size()) +
         " chunk bases for " + std::to_string(n) + " variables");
  }
  uint64_t others = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    if (w.chunk_others[c] != others) {
      fail("chunk " + std::to_string(c) + " starts at value " + std::to_string(w.chunk_others[c]) +
           ", its classes say " + std::to_string(others));
    }
    const uint64_t end = std::min<uint64_t>((c + 1) * W::kWordsPerChunk, words);
    for (uint64_t k = c * W::kWordsPerChunk; k < end; ++k) {
      const uint32_t x = w.classes[k];
      if (x & (x >> 1) & 0x55555555u) fail("class 3 in word " + std::to_string(k));
      others += uint64_t(std::popcount(x & 0xaaaaaaaau));
    }
  }
  if (n % W::kVariablesPerWord != 0 && (w.classes.back() >> (2 * (n % W::kVariablesPerWord))) != 0) {
    fail("classes past the last variable");
  }
  if (others != w.others.size()) {
    fail(std::to_string(others) + " 'other' classes but " + std::to_string(w.others.size()) + " values");
  }
}

std::vector<Fr> ExpandWitness(const CompactWitness& w) {
  std::vector<Fr> z(w.num_variables);
  size_t next = 0;
  for (uint64_t v = 0; v < w.num_variables; ++v) {
    switch (ClassOf(w, v)) {
      case WitnessClass::kZero: z[v] = Fr::Zero(); break;
      case WitnessClass::kOne: z[v] = Fr::One(); break;
      case WitnessClass::kOther: z[v] = w.others.at(next++); break;
      default: throw std::invalid_argument("ExpandWitness: class 3 at variable " + std::to_string(v));
    }
  }
  if (next != w.others.size()) throw std::invalid_argument("ExpandWitness: more values than 'other' classes");
  return z;
}

void ExpandWitnessInto(const CompactWitness& w, std::span<Fr> z, unsigned threads) {
  using W = CompactWitness;
  const uint64_t n = w.num_variables;
  if (z.size() != n) {
    throw std::invalid_argument("ExpandWitnessInto: z has " + std::to_string(z.size()) + " values, the witness " +
                                std::to_string(n));
  }
  CheckCompactWitness(w);  // then every chunk's base and count below are in range
  const size_t chunks = (n + W::kChunkVariables - 1) / W::kChunkVariables;
  const unsigned workers = n < (uint64_t(1) << 16) ? 1 : util::ResolveThreads(threads);
  const Fr zero = Fr::Zero(), one = Fr::One();
  util::ParallelForChunks(chunks, workers, [&](size_t cb, size_t ce, size_t) {
    for (size_t ch = cb; ch < ce; ++ch) {
      uint64_t at = w.chunk_others[ch];
      const uint64_t vb = ch * W::kChunkVariables, ve = std::min<uint64_t>(n, vb + W::kChunkVariables);
      for (uint64_t v = vb; v < ve; ++v) {
        switch (ClassOf(w, v)) {
          case WitnessClass::kZero: z[v] = zero; break;
          case WitnessClass::kOne: z[v] = one; break;
          default: z[v] = w.others[at++]; break;  // kOther (CheckCompactWitness refused class 3)
        }
      }
    }
  });
}

}  // namespace cuzk::r1cs
