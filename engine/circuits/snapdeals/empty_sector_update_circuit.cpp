#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"

#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/circuits/snapdeals/counting_cs.hpp"
#include "engine/circuits/snapdeals/gadgets/num.hpp"
#include "engine/circuits/snapdeals/gadgets/por.hpp"
#include "engine/circuits/snapdeals/gadgets/poseidon.hpp"
#include "engine/circuits/snapdeals/gadgets/select.hpp"
#include "engine/circuits/snapdeals/gadgets/tree_d_hash.hpp"
#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/circuits/snapdeals/native/sha256.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/r1cs/checking.hpp"
#include "engine/r1cs/witness.hpp"

namespace cuzk::snapdeals {
namespace {

using filecoin::SectorShape;
using gadgets::AllocatedBit;
using gadgets::Boolean;
using r1cs::LinearCombination;
using r1cs::Variable;

std::string Str(uint64_t v) { return std::to_string(v); }

std::vector<Boolean> AsBooleans(std::span<const AllocatedBit> bits) {
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (const auto& b : bits) out.push_back(Boolean::Is(b));
  return out;
}

// Step 2: the pbl + 6 low bits of k_and_h_select, then their packing row.
template <class CS>
std::vector<AllocatedBit> KAndHSelectBits(CS& cs, Variable khs, unsigned nbits, const CircuitWitness* w) {
  uint64_t value = 0;
  if constexpr (CS::kNeedsValues) value = w->k_and_h_select.ToCanonical()[0];
  std::vector<AllocatedBit> bits;
  for (unsigned i = 0; i < nbits; ++i) {
    auto ns = r1cs::Namespace(cs, [i] { return "k_and_h_select_bit_" + Str(i); });
    bits.push_back(gadgets::AllocBit(cs, (value >> i) & 1));
  }
  cs.Enforce(
      "k_and_h_select binary decomp", [&] { return gadgets::PackedBitsLc(bits); },
      [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(khs); });
  return bits;
}

// Step 8 (apex_por): the apex tree over this partition's A apex leaves, then
// its root's path (the partition bits) up to comm_d_new.
template <class CS>
void ApexPor(CS& cs, std::vector<Variable> row, std::span<const AllocatedBit> partition_bits,
             const std::vector<std::vector<Variable>>& partition_path, Variable comm_d_new) {
  auto ns = r1cs::Namespace(cs, "apex_gadget");
  for (unsigned level = 0; row.size() > 1; ++level) {
    std::vector<Variable> next;
    for (size_t i = 0; i < row.size() / 2; ++i) {
      auto ns2 = r1cs::Namespace(cs, [level, i] {
        return "apex_tree generation hash (tree_row=" + Str(level) + ", siblings=" + Str(i) + ")";
      });
      next.push_back(gadgets::TreeDHash2(cs, row[2 * i], row[2 * i + 1]));
    }
    row = std::move(next);
  }
  std::vector<unsigned> arities(partition_path.size(), 2);
  auto ns3 = r1cs::Namespace(cs, "partition-tree por");
  gadgets::PorNoChallengeInput(cs, partition_bits, row[0], partition_path, arities, comm_d_new,
                               gadgets::Sha256TreeHasher{});
}

// Step 9 (gen_challenge_bits): per digest, the rb-bit chunks of its bits.
template <class CS>
std::vector<std::vector<AllocatedBit>> GenChallengeBits(CS& cs, const SectorShape& s, Variable comm_r_new,
                                                        Variable partition) {
  auto ns = r1cs::Namespace(cs, "gen_challenge_bits");
  const unsigned dpp = s.digests_per_partition, rb = s.challenge_random_bits;
  const ff::Fr tag = CustomTag(1);
  std::vector<std::vector<AllocatedBit>> out;
  for (unsigned j = 0; j < dpp; ++j) {
    Variable di = cs.Alloc([j] { return "digest_index_" + Str(j); },
                           [&] { return cs.Value(partition) * ff::Fr::FromUint64(dpp) + ff::Fr::FromUint64(j); });
    cs.Enforce([j] { return "digest_index_" + Str(j) + " == k * digests_per_partition + " + Str(j); },
               [&] {
                 LinearCombination lc(ff::Fr::FromUint64(dpp) * partition);
                 lc.Add(Variable::One(), ff::Fr::FromUint64(j));
                 return lc;
               },
               [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(di); });
    Variable digest;
    {
      auto ns2 = r1cs::Namespace(cs, [j] { return "digest_" + Str(j); });
      const Variable pre[2] = {comm_r_new, di};
      digest = gadgets::PoseidonHash(cs, pre, tag);
    }
    std::vector<AllocatedBit> bits;
    {
      auto ns2 = r1cs::Namespace(cs, [j] { return "digest_" + Str(j) + "_bits"; });
      bits = gadgets::AllocatedNumToAllocatedBits(cs, digest);
    }
    const size_t take = j + 1 == dpp ? s.challenge_count - out.size() : s.challenges_per_digest;
    for (size_t q = 0; q < take; ++q) out.emplace_back(bits.begin() + q * rb, bits.begin() + (q + 1) * rb);
  }
  return out;
}

// Step 10a (get_challenge_high_bits): the challenge's h high bits for the h
// that h_select picks, as sum_idx h_select_bit[idx] * pack(high h_idx bits).
template <class CS>
Variable ChallengeHighBits(CS& cs, const SectorShape& s, std::span<const AllocatedBit> c_bits,
                           std::span<const AllocatedBit> h_select_bits) {
  const size_t cbl = c_bits.size();
  std::vector<Boolean> c_booleans = AsBooleans(c_bits);
  std::vector<Variable> or_zero;
  for (size_t idx = 0; idx < s.h_choices.size(); ++idx) {
    const unsigned h = s.h_choices[idx];
    Variable high;
    {
      auto ns = r1cs::Namespace(cs, [h, idx] { return "c_high (h=" + Str(h) + ", k=" + Str(idx) + ")"; });
      high = gadgets::PackBits(cs, std::span<const Boolean>(c_booleans).subspan(cbl - h));
    }
    const AllocatedBit& sel = h_select_bits[idx];
    Variable o = cs.Alloc([h, idx] { return "c_high_or_zero (h=" + Str(h) + ", k=" + Str(idx) + ")"; },
                          [&] { return sel.value ? cs.Value(high) : ff::Fr::Zero(); });
    cs.Enforce([h, idx] { return "c_high_or_zero == c_high * h_select_bit (h=" + Str(h) + ", k=" + Str(idx) + ")"; },
               [&] { return LinearCombination(high); }, [&] { return LinearCombination(sel.var); },
               [&] { return LinearCombination(o); });
    or_zero.push_back(o);
  }
  Variable selected = cs.Alloc("c_high_selected", [&] {
    ff::Fr acc;
    for (Variable o : or_zero) acc += cs.Value(o);
    return acc;
  });
  cs.Enforce(
      "c_high_selected == dot(c_highs, h_select_bits)",
      [&] {
        LinearCombination lc;
        for (Variable o : or_zero) lc += o;
        return lc;
      },
      [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(selected); });
  return selected;
}

// Allocates a TreeR path: per level (base, sub, top) its arity - 1 siblings.
template <class CS>
std::vector<std::vector<Variable>> AllocTreeRPath(CS& cs, const char* which, unsigned c,
                                                  std::span<const unsigned> arities,
                                                  const std::vector<std::vector<ff::Fr>>* values) {
  std::vector<std::vector<Variable>> path(arities.size());
  for (size_t row = 0; row < arities.size(); ++row) {
    for (unsigned i = 0; i + 1 < arities[row]; ++i) {
      path[row].push_back(cs.Alloc(
          [=] {
            return std::string(which) + " sibling (c_index=" + Str(c) + ", tree_row=" + Str(row) +
                   ", sibling_index=" + Str(i) + ")";
          },
          [&] { return (*values)[row][i]; }));
    }
  }
  return path;
}

}  // namespace

template <class CS>
void SynthesizeEmptySectorUpdate(CS& cs, const SectorShape& s, const CircuitWitness* w) {
  if constexpr (CS::kNeedsValues) {
    if (!w) throw std::invalid_argument("EmptySectorUpdate: this constraint system needs a witness");
    if (w->apex_leafs.size() != s.apex_leaf_count || w->partition_path.size() != s.partition_bit_len ||
        w->challenges.size() != s.challenge_count) {
      throw std::invalid_argument("EmptySectorUpdate: witness does not fit the " + s.Name() + " shape");
    }
  }
  const unsigned pbl = s.partition_bit_len, abl = s.apex_bit_len;
  const unsigned apex_levels = s.apex_levels;
  const ff::Fr gen_tag = CustomTag(1);

  // 1-3: k_and_h_select, its bits, the partition index.
  Variable khs = gadgets::AllocNum(cs, "k_and_h_select", [&] { return w->k_and_h_select; });
  {
    auto ns = r1cs::Namespace(cs, "k_and_h_select (public input)");
    gadgets::Inputize(cs, khs);
  }
  std::vector<AllocatedBit> khs_bits = KAndHSelectBits(cs, khs, pbl + unsigned(s.h_choices.size()), w);
  std::vector<AllocatedBit> partition_bits(khs_bits.begin(), khs_bits.begin() + pbl);
  std::vector<AllocatedBit> h_select_bits(khs_bits.begin() + pbl, khs_bits.end());
  Variable partition;
  {
    auto ns = r1cs::Namespace(cs, "pack partition bits");
    std::vector<Boolean> pb = AsBooleans(partition_bits);
    partition = gadgets::PackBits(cs, pb);
  }

  // 4: the commitments, each allocated then inputized.
  auto alloc_public = [&](const char* name, const ff::Fr CircuitWitness::*field) {
    Variable v = gadgets::AllocNum(cs, name, [&] { return w->*field; });
    auto ns = r1cs::Namespace(cs, [name] { return std::string(name) + "_input"; });
    gadgets::Inputize(cs, v);
    return v;
  };
  Variable comm_r_old = alloc_public("comm_r_old", &CircuitWitness::comm_r_old);
  Variable comm_d_new = alloc_public("comm_d_new", &CircuitWitness::comm_d_new);
  Variable comm_r_new = alloc_public("comm_r_new", &CircuitWitness::comm_r_new);

  // 5: phi = H_gen(comm_d_new, comm_r_old).
  Variable phi;
  {
    auto ns = r1cs::Namespace(cs, "phi");
    const Variable pre[2] = {comm_d_new, comm_r_old};
    phi = gadgets::PoseidonHash(cs, pre, gen_tag);
  }

  // 6: private inputs without the challenge proofs.
  Variable comm_c = gadgets::AllocNum(cs, "comm_c", [&] { return w->comm_c; });
  Variable root_r_old = gadgets::AllocNum(cs, "root_r_old", [&] { return w->root_r_old; });
  Variable root_r_new = gadgets::AllocNum(cs, "root_r_new", [&] { return w->root_r_new; });
  std::vector<Variable> apex_leafs;
  for (unsigned i = 0; i < s.apex_leaf_count; ++i) {
    apex_leafs.push_back(cs.Alloc([i] { return "apex_leaf_" + Str(i); }, [&] { return w->apex_leafs[i]; }));
  }
  std::vector<std::vector<Variable>> partition_path;
  for (unsigned i = 0; i < pbl; ++i) {
    partition_path.push_back(
        {cs.Alloc([i] { return "partition_path_sibling_" + Str(i); }, [&] { return w->partition_path[i]; })});
  }

  // 7: comm_r_old = H2(comm_c, root_r_old), comm_r_new = H2(comm_c, root_r_new).
  auto check_comm_r = [&](const char* name, Variable root, Variable comm_r) {
    Variable calc;
    {
      auto ns = r1cs::Namespace(cs, [name] { return std::string(name) + "_calc"; });
      const Variable pre[2] = {comm_c, root};
      calc = gadgets::PoseidonHash(cs, pre, MerkleTreeTag(2));
    }
    cs.Enforce([name] { return "enforce " + std::string(name) + "_calc == " + name; },
               [&] { return LinearCombination(calc); }, [] { return LinearCombination(Variable::One()); },
               [&] { return LinearCombination(comm_r); });
  };
  check_comm_r("comm_r_old", root_r_old, comm_r_old);
  check_comm_r("comm_r_new", root_r_new, comm_r_new);

  // 8: apex leaves -> comm_d_new.
  ApexPor(cs, apex_leafs, partition_bits, partition_path, comm_d_new);

  // 9: challenge bits.
  std::vector<std::vector<AllocatedBit>> generated = GenChallengeBits(cs, s, comm_r_new, partition);

  // 10: per challenge.
  const std::vector<unsigned> tree_r_arities = s.TreeRArities();
  const std::vector<unsigned> tree_d_arities(apex_levels, 2);
  for (unsigned c = 0; c < s.challenge_count; ++c) {
    const CircuitWitness::Challenge* cw = nullptr;
    if constexpr (CS::kNeedsValues) cw = &w->challenges[c];
    std::vector<AllocatedBit> c_bits = generated[c];
    c_bits.insert(c_bits.end(), partition_bits.begin(), partition_bits.end());

    Variable high;
    {
      auto ns = r1cs::Namespace(cs, [c] { return "get_challenge_high_bits (c_index=" + Str(c) + ")"; });
      high = ChallengeHighBits(cs, s, c_bits, h_select_bits);
    }
    Variable rho;
    {
      auto ns = r1cs::Namespace(cs, [c] { return "rho (c_index=" + Str(c) + ")"; });
      const Variable pre[2] = {phi, high};
      rho = gadgets::PoseidonHash(cs, pre, gen_tag);
    }
    Variable leaf_r_old =
        cs.Alloc([c] { return "leaf_r_old (c_index=" + Str(c) + ")"; }, [&] { return cw->leaf_r_old; });
    Variable leaf_d_new =
        cs.Alloc([c] { return "leaf_d_new (c_index=" + Str(c) + ")"; }, [&] { return cw->leaf_d_new; });
    Variable leaf_r_new;
    {
      auto ns = r1cs::Namespace(cs, [c] { return "leaf_r_new (c_index=" + Str(c) + ")"; });
      Variable prod;
      {
        auto ns2 = r1cs::Namespace(cs, "label_d_new * rho");
        prod = gadgets::Mul(cs, leaf_d_new, rho);
      }
      leaf_r_new = cs.Alloc("label_r_new", [&] { return cs.Value(leaf_r_old) + cs.Value(prod); });
      cs.Enforce(
          "label_r_new == label_r_old + label_d_new * rho", [&] { return LinearCombination(leaf_r_old) + prod; },
          [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(leaf_r_new); });
    }

    auto path_r_old = AllocTreeRPath(cs, "path_r_old", c, tree_r_arities, cw ? &cw->path_r_old : nullptr);
    {
      auto ns = r1cs::Namespace(cs, [c] { return "por tree_r_old (c_index=" + Str(c) + ")"; });
      gadgets::PorNoChallengeInput(cs, c_bits, leaf_r_old, path_r_old, tree_r_arities, root_r_old,
                                   gadgets::PoseidonTreeHasher{});
    }
    auto path_r_new = AllocTreeRPath(cs, "path_r_new", c, tree_r_arities, cw ? &cw->path_r_new : nullptr);
    {
      auto ns = r1cs::Namespace(cs, [c] { return "por tree_r_new (c_index=" + Str(c) + ")"; });
      gadgets::PorNoChallengeInput(cs, c_bits, leaf_r_new, path_r_new, tree_r_arities, root_r_new,
                                   gadgets::PoseidonTreeHasher{});
    }

    Variable apex_leaf;
    {
      auto ns = r1cs::Namespace(cs, [c] { return "select_apex_leaf (c_index=" + Str(c) + ")"; });
      std::vector<Boolean> bits = AsBooleans(std::span<const AllocatedBit>(c_bits).subspan(apex_levels, abl));
      apex_leaf = gadgets::Select(cs, apex_leafs, bits);
    }
    std::vector<std::vector<Variable>> path_to_apex;
    for (unsigned row = 0; row < apex_levels; ++row) {
      path_to_apex.push_back({cs.Alloc(
          [c, row] { return "path_to_apex_leaf sibling (c_index=" + Str(c) + ", tree_row=" + Str(row) + ")"; },
          [&] { return cw->path_to_apex[row]; })});
    }
    {
      auto ns = r1cs::Namespace(cs, [c] { return "por to_apex_leaf (c_index=" + Str(c) + ")"; });
      gadgets::PorNoChallengeInput(cs, std::span<const AllocatedBit>(c_bits).first(apex_levels), leaf_d_new,
                                   path_to_apex, tree_d_arities, apex_leaf, gadgets::Sha256TreeHasher{});
    }
  }
}

template void SynthesizeEmptySectorUpdate(r1cs::RecordingCS&, const SectorShape&, const CircuitWitness*);
template void SynthesizeEmptySectorUpdate(r1cs::WitnessCS&, const SectorShape&, const CircuitWitness*);
template void SynthesizeEmptySectorUpdate(r1cs::CheckingCS&, const SectorShape&, const CircuitWitness*);
template void SynthesizeEmptySectorUpdate(CountingCS&, const SectorShape&, const CircuitWitness*);
template void SynthesizeEmptySectorUpdate(DensityCountingCS&, const SectorShape&, const CircuitWitness*);

unsigned CircuitCounts::DomainLog2() const {
  const uint64_t rows = constraints + inputs;
  return unsigned(std::bit_width(rows - 1));
}

CircuitCounts CountEmptySectorUpdate(const SectorShape& shape) {
  CountingCS cs;
  SynthesizeEmptySectorUpdate(cs, shape, nullptr);
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

CircuitDensity CountEmptySectorUpdateDensity(const SectorShape& shape) {
  DensityCountingCS cs;
  SynthesizeEmptySectorUpdate(cs, shape, nullptr);
  CircuitDensity d;
  d.counts = {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
  d.a_dense_aux = cs.a_aux_density().Count();
  d.b_dense_aux = cs.b_aux_density().Count();
  d.b_dense_inputs = cs.b_input_density().Count();
  return d;
}

r1cs::CompiledCircuit CompileEmptySectorUpdate(const SectorShape& shape, const r1cs::RecordOptions& options) {
  r1cs::RecordingCS cs(options);
  SynthesizeEmptySectorUpdate(cs, shape, nullptr);
  return std::move(cs).Finish();
}

r1cs::Assignment SynthesizeEmptySectorUpdateWitness(const SectorShape& shape, const CircuitWitness& witness) {
  // Reserve the whole assignment up front (32 GiB: 81M values; growing by
  // doubling would copy and page-fault several GB).
  r1cs::WitnessCS cs(1 + kEmptySectorUpdatePublicInputs, witness::EmptySectorUpdateAuxCount(shape));
  SynthesizeEmptySectorUpdate(cs, shape, &witness);
  return cs.TakeAssignment();
}

namespace {

// Thrown out of synthesis by StopAtFirstFailureCS.
struct FirstFailureFound {};

// CheckingCS that ends synthesis at the first failing row.
class StopAtFirstFailureCS : public r1cs::CheckingCS {
 public:
  template <class N, class A, class B, class C>
  void Enforce(N&& name, A&& a, B&& b, C&& c) {
    r1cs::CheckingCS::Enforce(std::forward<N>(name), std::forward<A>(a), std::forward<B>(b), std::forward<C>(c));
    if (!is_satisfied()) throw FirstFailureFound{};
  }
};

template <class CS>
std::optional<r1cs::ConstraintFailure> Check(CS& cs, const SectorShape& shape, const CircuitWitness& witness,
                                             CircuitCounts* counts) {
  try {
    SynthesizeEmptySectorUpdate(cs, shape, &witness);
  } catch (const FirstFailureFound&) {
  }
  if (counts) *counts = {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
  return cs.first_failure();
}

}  // namespace

std::optional<r1cs::ConstraintFailure> CheckEmptySectorUpdate(const SectorShape& shape, const CircuitWitness& witness,
                                                              CircuitCounts* counts, bool stop_at_first_failure) {
  if (stop_at_first_failure) {
    StopAtFirstFailureCS cs;
    return Check(cs, shape, witness, counts);
  }
  r1cs::CheckingCS cs;
  return Check(cs, shape, witness, counts);
}

std::string EmptySectorUpdateParamsStem(const SectorShape& shape) {
  const std::string id = "empty_sector_update::PublicParams{ sector_nodes: " + Str(shape.nodes) + " }";
  const Sha256Digest digest = Sha256Hash(std::span(reinterpret_cast<const uint8_t*>(id.data()), id.size()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : digest) hex += {kHex[b >> 4], kHex[b & 15]};
  return "v28-empty-sector-update-merkletree-poseidon_hasher-" + Str(shape.base_arity) + "-" + Str(shape.sub_arity) +
         "-" + Str(shape.top_arity) + "-" + hex;
}

// ---- witness from a vanilla proof ----------------------------------------------------

CircuitWitness MakeCircuitWitness(const SectorShape& s, unsigned k, const filecoin::Commitments& comms,
                                  const filecoin::PartitionProof& proof) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("circuit witness: " + what); };
  if (k >= s.partitions) fail("partition " + Str(k) + " >= " + Str(s.partitions) + " partitions");
  if (proof.apex_leafs.size() != s.apex_leaf_count) {
    fail(Str(proof.apex_leafs.size()) + " apex leaves, the " + s.Name() + " shape has " + Str(s.apex_leaf_count));
  }
  if (proof.challenge_proofs.size() != s.challenge_count) {
    fail(Str(proof.challenge_proofs.size()) + " challenge proofs, the " + s.Name() + " shape has " +
         Str(s.challenge_count));
  }
  auto fr = [](const filecoin::Domain& d, const std::string& what) { return filecoin::DomainToFr(d, what); };
  CircuitWitness w;
  w.k = k;
  w.k_and_h_select = ff::Fr::FromUint64(s.KAndHSelect(k));
  w.comm_r_old = fr(comms.comm_r_old, "comm_r_old");
  w.comm_d_new = fr(comms.comm_d_new, "comm_d_new");
  w.comm_r_new = fr(comms.comm_r_new, "comm_r_new");
  w.comm_c = fr(proof.comm_c, "comm_c");
  for (size_t i = 0; i < proof.apex_leafs.size(); ++i) w.apex_leafs.push_back(fr(proof.apex_leafs[i], "apex_leafs"));

  const std::vector<unsigned> arities = s.TreeRArities();
  auto tree_r_path = [&](const filecoin::MerkleProof& p, const std::string& what) {
    if (p.path.size() != arities.size())
      fail(what + ": " + Str(p.path.size()) + " levels, expected " + Str(arities.size()));
    std::vector<std::vector<ff::Fr>> out;
    for (size_t row = 0; row < arities.size(); ++row) {
      if (p.path[row].hashes.size() + 1 != arities[row]) {
        fail(what + ": level " + Str(row) + " has " + Str(p.path[row].hashes.size()) + " siblings, arity is " +
             Str(arities[row]));
      }
      std::vector<ff::Fr> sibs;
      for (const auto& h : p.path[row].hashes) sibs.push_back(fr(h, what));
      out.push_back(std::move(sibs));
    }
    return out;
  };
  const unsigned partition_start = s.apex_levels + s.apex_bit_len;
  for (size_t c = 0; c < proof.challenge_proofs.size(); ++c) {
    const auto& cp = proof.challenge_proofs[c];
    const std::string where = "challenge_proofs[" + Str(c) + "]";
    if (cp.proof_d_new.path.size() != s.challenge_bit_len) {
      fail(where + ".proof_d_new: " + Str(cp.proof_d_new.path.size()) + " levels, expected " +
           Str(s.challenge_bit_len));
    }
    for (const auto& level : cp.proof_d_new.path) {
      if (level.hashes.size() != 1) fail(where + ".proof_d_new: TreeD levels hold exactly one sibling");
    }
    CircuitWitness::Challenge ch;
    ch.leaf_r_old = fr(cp.proof_r_old.leaf, where + ".proof_r_old.leaf");
    ch.leaf_d_new = fr(cp.proof_d_new.leaf, where + ".proof_d_new.leaf");
    ch.path_r_old = tree_r_path(cp.proof_r_old, where + ".proof_r_old");
    ch.path_r_new = tree_r_path(cp.proof_r_new, where + ".proof_r_new");
    for (unsigned row = 0; row < s.apex_levels; ++row) {
      ch.path_to_apex.push_back(fr(cp.proof_d_new.path[row].hashes[0], where + ".proof_d_new"));
    }
    // Every challenge's last pbl TreeD siblings are the partition path (upstream asserts it).
    for (unsigned i = 0; i < s.partition_bit_len; ++i) {
      ff::Fr sib = fr(cp.proof_d_new.path[partition_start + i].hashes[0], where + ".proof_d_new");
      if (c == 0) {
        w.partition_path.push_back(sib);
      } else if (sib != w.partition_path[i]) {
        fail(where + ".proof_d_new: partition path level " + Str(i) + " differs from challenge 0's");
      }
    }
    w.challenges.push_back(std::move(ch));
  }
  w.root_r_old = fr(proof.challenge_proofs[0].proof_r_old.root, "challenge_proofs[0].proof_r_old.root");
  w.root_r_new = fr(proof.challenge_proofs[0].proof_r_new.root, "challenge_proofs[0].proof_r_new.root");
  return w;
}

}  // namespace cuzk::snapdeals
