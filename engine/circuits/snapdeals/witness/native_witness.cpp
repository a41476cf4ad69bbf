#include "engine/circuits/snapdeals/witness/native_witness.hpp"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/insert.hpp"       // InsertConstraints
#include "engine/circuits/snapdeals/gadgets/poseidon.hpp"     // PoseidonConstraints
#include "engine/circuits/snapdeals/gadgets/tree_d_hash.hpp"  // kTreeDHashAux
#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/circuits/snapdeals/witness/poseidon_witness.hpp"
#include "engine/circuits/snapdeals/witness/sha256_witness.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::snapdeals::witness {
namespace {

using ff::Fr;
using filecoin::SectorShape;

constexpr uint64_t kNodeAux = gadgets::kTreeDHashAux;
constexpr unsigned kNumBits = 255;

uint64_t PoseidonAux(unsigned arity) { return gadgets::PoseidonConstraints(arity); }

// Aux of one TreeD level of a por: 2 picks (insert) + the node.
constexpr uint64_t kTreeDLevelAux = 2 + kNodeAux;

// Aux of one challenge's block (spec 6.1 step 10).
uint64_t ChallengeAux(const SectorShape& s) {
  uint64_t n = 2 * s.h_choices.size() + 1;  // c_high and c_high_or_zero per h, c_high_selected
  n += PoseidonAux(2);                      // rho
  n += 4;                                   // leaf_r_old, leaf_d_new, label_d_new * rho, label_r_new
  uint64_t tree_r = 0;
  for (unsigned a : s.TreeRArities()) tree_r += (a - 1) + gadgets::InsertConstraints(a) + PoseidonAux(a);
  n += 2 * tree_r;                                      // path_r_old, path_r_new with their por
  n += s.apex_leaf_count - 1;                           // select
  n += uint64_t(s.apex_levels) * (1 + kTreeDLevelAux);  // siblings, then the por
  return n;
}

// Aux before the apex tree (steps 1-7).
uint64_t PrefixAux(const SectorShape& s) {
  return 1 + (s.partition_bit_len + s.h_choices.size()) + 1 + 3 + PoseidonAux(2) + 3 + s.apex_leaf_count +
         s.partition_bit_len + 2 * PoseidonAux(2);
}
uint64_t ApexAux(const SectorShape& s) {
  return uint64_t(s.apex_leaf_count - 1) * kNodeAux + uint64_t(s.partition_bit_len) * kTreeDLevelAux;
}
uint64_t DigestsAux(const SectorShape& s) {
  return uint64_t(s.digests_per_partition) * (1 + PoseidonAux(2) + kNumBits);
}

// The assignment's storage, zeroed. A 32 GiB partition's 2.6 GB touched in
// 4 KiB pages costs ~600k page faults (measured: 80% of this path's time on a
// VM); where transparent huge pages are on request (THP "madvise" mode), ask
// for them before the first touch: 2 MiB pages, 512x fewer faults.
void AllocateValues(std::vector<Fr>& values, size_t n) {
  values.reserve(n);
#ifdef __linux__
  constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(values.data()) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(values.data() + n) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advisory: errors ignored
#endif
  values.resize(n);
}

const Fr& Bit(bool b) {
  static const Fr kZero = Fr::Zero(), kOne = Fr::One();
  return b ? kOne : kZero;
}

inline Fr Pick(bool cond, const Fr& a, const Fr& b, Fr*& out) {
  *out = cond ? a : b;
  return *out++;
}

// gadgets::Insert's values, in its pick order.
std::vector<Fr> Insert(const Fr& cur, unsigned index, std::span<const Fr> sibs, Fr*& out) {
  const size_t arity = sibs.size() + 1;
  const bool b0 = index & 1, b1 = (index >> 1) & 1, b2 = (index >> 2) & 1;
  if (arity == 2) {
    Fr p0 = Pick(b0, sibs[0], cur, out);
    Fr p1 = Pick(b0, cur, sibs[0], out);
    return {p0, p1};
  }
  const Fr& a = cur;
  if (arity == 4) {
    const Fr &b = sibs[0], &c = sibs[1], &d = sibs[2];
    Fr p0x = Pick(b0, b, a, out), p0 = Pick(b1, b, p0x, out);
    Fr p1x = Pick(b0, a, b, out), p1 = Pick(b1, c, p1x, out);
    Fr p2x = Pick(b0, d, a, out), p2 = Pick(b1, p2x, c, out);
    Fr p3x = Pick(b0, a, d, out), p3 = Pick(b1, p3x, d, out);
    return {p0, p1, p2, p3};
  }
  if (arity != 8) throw std::invalid_argument("native witness: unsupported arity " + std::to_string(arity));
  const Fr &b = sibs[0], &c = sibs[1], &d = sibs[2], &e = sibs[3], &f = sibs[4], &g = sibs[5], &h = sibs[6];
  const bool nor = !b0 && !b1, and_ = b0 && b1;
  *out++ = Bit(nor);
  *out++ = Bit(and_);
  Fr p0_xx0 = Pick(nor, a, b, out), p0 = Pick(b2, b, p0_xx0, out);
  Fr p1_x00 = Pick(b0, a, b, out), p1_xx0 = Pick(b1, c, p1_x00, out), p1 = Pick(b2, c, p1_xx0, out);
  Fr p2_x10 = Pick(b0, d, a, out), p2_xx0 = Pick(b1, p2_x10, c, out), p2 = Pick(b2, d, p2_xx0, out);
  Fr p3_xx0 = Pick(and_, a, d, out), p3 = Pick(b2, e, p3_xx0, out);
  Fr p4_xx1 = Pick(nor, a, f, out), p4 = Pick(b2, p4_xx1, e, out);
  Fr p5_x01 = Pick(b0, a, f, out), p5_xx1 = Pick(b1, g, p5_x01, out), p5 = Pick(b2, p5_xx1, f, out);
  Fr p6_x11 = Pick(b0, h, a, out), p6_xx1 = Pick(b1, p6_x11, g, out), p6 = Pick(b2, p6_xx1, g, out);
  Fr p7_xx1 = Pick(and_, a, h, out), p7 = Pick(b2, p7_xx1, h, out);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// TreeR por from the leaf up; the challenge's bits are consumed log2(arity) at a time.
void TreeRPor(uint64_t challenge, const Fr& leaf, const std::vector<std::vector<Fr>>& path,
              const std::vector<unsigned>& arities, Fr*& out) {
  Fr cur = leaf;
  unsigned shift = 0;
  for (size_t level = 0; level < arities.size(); ++level) {
    const unsigned arity = arities[level];
    const unsigned index = unsigned(challenge >> shift) & (arity - 1);
    shift += unsigned(std::countr_zero(arity));
    std::vector<Fr> pre = Insert(cur, index, path[level], out);
    cur = PoseidonWitness(pre, MerkleTreeTag(arity), out);
    out += PoseidonAux(arity);
  }
}

// One TreeD por level: insert (2 picks) and the node.
Fr TreeDLevel(bool bit, const Fr& cur, const Fr& sibling, Fr*& out) {
  const Fr p0 = Pick(bit, sibling, cur, out);
  const Fr p1 = Pick(bit, cur, sibling, out);
  const Fr node = TreeDHashWitness(p0, p1, out);
  out += kNodeAux;
  return node;
}

void CheckShape(const SectorShape& s, const CircuitWitness& w) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("native witness: " + what + " does not fit the " + s.Name() + " shape");
  };
  if (w.apex_leafs.size() != s.apex_leaf_count) fail("apex_leafs");
  if (w.partition_path.size() != s.partition_bit_len) fail("partition_path");
  if (w.challenges.size() != s.challenge_count) fail("challenges");
  const std::vector<unsigned> arities = s.TreeRArities();
  for (const auto& c : w.challenges) {
    if (c.path_to_apex.size() != s.apex_levels) fail("path_to_apex");
    for (const auto* p : {&c.path_r_old, &c.path_r_new}) {
      if (p->size() != arities.size()) fail("TreeR path");
      for (size_t l = 0; l < arities.size(); ++l)
        if ((*p)[l].size() + 1 != arities[l]) fail("TreeR path level");
    }
  }
}

// Writes every one of z's n values (n = the variable count, checked by the
// callers): the prefix and the digests in sequence through `p`, the apex tree
// and the challenges at their fixed offsets. Nothing reads z or relies on it
// being zeroed, so a reused buffer needs no clearing; that each region's
// writer stores exactly its aux count of values is held by the layout check
// below (the regions add up to n) and by the tests, which compute into
// poisoned and previously used buffers and compare with a fresh computation.
void WriteWitness(const SectorShape& s, const CircuitWitness& w, Fr* const z, const uint64_t n,
                  const NativeWitnessOptions& options) {
  const unsigned pbl = s.partition_bit_len, cbl = s.challenge_bit_len, rb = s.challenge_random_bits;
  const unsigned nh = unsigned(s.h_choices.size());
  const uint64_t khs = w.k_and_h_select.ToCanonical()[0];
  const uint64_t k = khs & ((uint64_t(1) << pbl) - 1);
  const Fr gen_tag = CustomTag(1);

  static_assert(kEmptySectorUpdateNumInputs == 5, "ONE and the four public inputs are written below");
  z[0] = Fr::One();
  z[1] = w.k_and_h_select;
  z[2] = w.comm_r_old;
  z[3] = w.comm_d_new;
  z[4] = w.comm_r_new;
  Fr* p = z + kEmptySectorUpdateNumInputs;

  // Steps 1-7.
  *p++ = w.k_and_h_select;
  for (unsigned i = 0; i < pbl + nh; ++i) *p++ = Bit((khs >> i) & 1);
  *p++ = Fr::FromUint64(k);
  *p++ = w.comm_r_old;
  *p++ = w.comm_d_new;
  *p++ = w.comm_r_new;
  const Fr phi_in[2] = {w.comm_d_new, w.comm_r_old};
  const Fr phi = PoseidonWitness(phi_in, gen_tag, p);
  p += PoseidonAux(2);
  *p++ = w.comm_c;
  *p++ = w.root_r_old;
  *p++ = w.root_r_new;
  for (const Fr& x : w.apex_leafs) *p++ = x;
  for (const Fr& x : w.partition_path) *p++ = x;
  for (const Fr& root : {w.root_r_old, w.root_r_new}) {
    const Fr in[2] = {w.comm_c, root};
    PoseidonWitness(in, MerkleTreeTag(2), p);
    p += PoseidonAux(2);
  }

  // Step 8 is written below (in parallel); step 9 needs the digests now.
  Fr* const apex_out = p;
  p += ApexAux(s);
  std::vector<uint64_t> challenges;
  for (unsigned j = 0; j < s.digests_per_partition; ++j) {
    const Fr di = Fr::FromUint64(k * s.digests_per_partition + j);
    *p++ = di;
    const Fr in[2] = {w.comm_r_new, di};
    const Fr digest = PoseidonWitness(in, gen_tag, p);
    p += PoseidonAux(2);
    const ff::Limbs<4> bits = digest.ToCanonical();
    for (unsigned i = 0; i < kNumBits; ++i) *p++ = Bit((bits[i / 64] >> (i % 64)) & 1);
    const unsigned take =
        j + 1 == s.digests_per_partition ? s.challenge_count - unsigned(challenges.size()) : s.challenges_per_digest;
    for (unsigned q = 0; q < take; ++q) {
      uint64_t c = 0;
      for (unsigned b = 0; b < rb; ++b) c |= uint64_t((bits[(q * rb + b) / 64] >> ((q * rb + b) % 64)) & 1) << b;
      challenges.push_back(c | (k << rb));
    }
  }
  Fr* const challenges_out = p;
  const uint64_t per_challenge = ChallengeAux(s);
  if (challenges_out + per_challenge * s.challenge_count != z + n) {
    throw std::logic_error("native witness: layout does not add up");
  }

  // Step 8: the apex tree, level by level (nodes of a level in parallel), then the partition path.
  {
    std::vector<Fr> row = w.apex_leafs;
    Fr* level_out = apex_out;
    while (row.size() > 1) {
      std::vector<Fr> next(row.size() / 2);
      util::ParallelFor(next.size(), options.threads, [&](size_t i) {
        next[i] = TreeDHashWitness(row[2 * i], row[2 * i + 1], level_out + i * kNodeAux);
      });
      level_out += next.size() * kNodeAux;
      row = std::move(next);
    }
    Fr cur = row[0];
    for (unsigned i = 0; i < pbl; ++i) cur = TreeDLevel((k >> i) & 1, cur, w.partition_path[i], level_out);
  }

  // Step 10, one challenge per task.
  const std::vector<unsigned> arities = s.TreeRArities();
  util::ParallelFor(s.challenge_count, options.threads, [&](size_t c) {
    const CircuitWitness::Challenge& cw = w.challenges[c];
    const uint64_t ch = challenges[c];
    Fr* q = challenges_out + c * per_challenge;
    Fr high;
    for (unsigned idx = 0; idx < nh; ++idx) {
      const Fr hi = Fr::FromUint64(ch >> (cbl - s.h_choices[idx]));
      *q++ = hi;
      const bool selected = (khs >> (pbl + idx)) & 1;
      *q++ = selected ? hi : Fr::Zero();
      if (selected) high += hi;
    }
    *q++ = high;
    const Fr rho_in[2] = {phi, high};
    const Fr rho = PoseidonWitness(rho_in, gen_tag, q);
    q += PoseidonAux(2);
    *q++ = cw.leaf_r_old;
    *q++ = cw.leaf_d_new;
    const Fr prod = cw.leaf_d_new * rho;
    *q++ = prod;
    const Fr leaf_r_new = cw.leaf_r_old + prod;
    *q++ = leaf_r_new;
    for (const auto& [leaf, path] : {std::pair{cw.leaf_r_old, &cw.path_r_old}, std::pair{leaf_r_new, &cw.path_r_new}}) {
      for (const auto& level : *path)
        for (const Fr& x : level) *q++ = x;
      TreeRPor(ch, leaf, *path, arities, q);
    }
    // select: most significant index bit first.
    std::vector<Fr> state = w.apex_leafs;
    for (size_t half = state.size() / 2, bit = s.apex_bit_len; half >= 1; half /= 2) {
      --bit;
      const bool b = (ch >> (s.apex_levels + bit)) & 1;
      for (size_t j = 0; j < half; ++j) state[j] = Pick(b, state[half + j], state[j], q);
    }
    for (const Fr& x : cw.path_to_apex) *q++ = x;
    Fr cur = cw.leaf_d_new;
    for (unsigned level = 0; level < s.apex_levels; ++level) {
      cur = TreeDLevel((ch >> level) & 1, cur, cw.path_to_apex[level], q);
    }
  });
}

}  // namespace

uint64_t EmptySectorUpdateAuxCount(const SectorShape& s) {
  return PrefixAux(s) + ApexAux(s) + DigestsAux(s) + uint64_t(s.challenge_count) * ChallengeAux(s);
}

uint64_t EmptySectorUpdateVariableCount(const SectorShape& s) {
  return kEmptySectorUpdateNumInputs + EmptySectorUpdateAuxCount(s);
}

void ComputeEmptySectorUpdateWitnessInto(const SectorShape& s, const CircuitWitness& w, std::span<Fr> z,
                                         const NativeWitnessOptions& options) {
  CheckShape(s, w);
  const uint64_t n = EmptySectorUpdateVariableCount(s);
  if (z.size() != n) {
    throw std::invalid_argument("native witness: a " + s.Name() + " partition has " + std::to_string(n) +
                                " variables, the buffer " + std::to_string(z.size()));
  }
  WriteWitness(s, w, z.data(), n, options);
}

std::span<const Fr> ComputeEmptySectorUpdateWitnessInto(const SectorShape& s, const CircuitWitness& w,
                                                        std::vector<Fr>& buffer, const NativeWitnessOptions& options) {
  CheckShape(s, w);  // before the buffer is touched
  const uint64_t n = EmptySectorUpdateVariableCount(s);
  if (buffer.capacity() < n) {
    std::vector<Fr> grown;
    AllocateValues(grown, n);
    buffer.swap(grown);  // the old storage goes with `grown`
  } else {
    buffer.resize(n);  // within capacity: no allocation (only a grown size zero-fills its new part)
  }
  WriteWitness(s, w, buffer.data(), n, options);
  return buffer;
}

r1cs::Assignment ComputeEmptySectorUpdateWitness(const SectorShape& s, const CircuitWitness& w,
                                                 const NativeWitnessOptions& options) {
  CheckShape(s, w);
  r1cs::Assignment z;
  z.num_inputs = kEmptySectorUpdateNumInputs;
  AllocateValues(z.values, EmptySectorUpdateVariableCount(s));
  WriteWitness(s, w, z.values.data(), z.values.size(), options);
  return z;
}

}  // namespace cuzk::snapdeals::witness
