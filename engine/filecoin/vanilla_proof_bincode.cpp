#include "engine/filecoin/vanilla_proof_bincode.hpp"

#include <cstring>

namespace cuzk::filecoin {
namespace {

constexpr size_t kDomainBytes = 32;

const char* KindName(uint64_t kind) {
  switch (kind) {
    case 0: return "Single";
    case 1: return "Sub";
    case 2: return "Top";
    default: return "unknown";
  }
}

// A field name built lazily: formatting happens only when an error is raised,
// so a valid 32 GiB proof (~3,000 path elements) costs no string work.
struct Field {
  const Field* parent = nullptr;
  const char* name = "";
  int64_t index = -1;  // >= 0: the field is name[index]

  std::string ToString() const {
    std::string s = parent ? parent->ToString() : std::string();
    if (*name) {
      if (!s.empty()) s += '.';
      s += name;
    }
    if (index >= 0) {
      s += '[';
      s += std::to_string(index);
      s += ']';
    }
    return s;
  }
};

// What one Merkle proof must look like for this shape.
struct ProofLayout {
  MerkleProofKind kind;
  std::vector<unsigned> arities;  // per level from the leaf up
  std::string description;        // "TreeR 8-8-0" / "TreeD"
};

ProofLayout TreeRLayout(const SectorShape& s) {
  return {s.TreeRKind(), s.TreeRArities(),
          "TreeR " + std::to_string(s.base_arity) + "-" + std::to_string(s.sub_arity) + "-" +
              std::to_string(s.top_arity) + " of a " + s.Name() + " sector"};
}

ProofLayout TreeDLayout(const SectorShape& s) {
  return {MerkleProofKind::kSingle, std::vector<unsigned>(s.challenge_bit_len, 2),
          "TreeD (binary) of a " + s.Name() + " sector"};
}

size_t PathElementsSize(const std::vector<unsigned>& arities, size_t begin, size_t end) {
  size_t n = 8;  // Vec length
  for (size_t i = begin; i < end; ++i) n += 8 + (arities[i] - 1) * kDomainBytes + 8;
  return n;
}

size_t MerkleProofSize(const ProofLayout& l) {
  size_t levels = l.arities.size();
  size_t n = 4 + 2 * kDomainBytes;  // variant + root + leaf
  switch (l.kind) {
    case MerkleProofKind::kSingle: return n + PathElementsSize(l.arities, 0, levels);
    case MerkleProofKind::kSub:
      return n + PathElementsSize(l.arities, 0, levels - 1) + PathElementsSize(l.arities, levels - 1, levels);
    case MerkleProofKind::kTop:
      return n + PathElementsSize(l.arities, 0, levels - 2) + PathElementsSize(l.arities, levels - 2, levels - 1) +
             PathElementsSize(l.arities, levels - 1, levels);
  }
  return n;
}

// ---- writer ---------------------------------------------------------------------

class Writer {
 public:
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void Dom(const Domain& d) { out_.insert(out_.end(), d.begin(), d.end()); }
  void Path(const std::vector<PathElement>& path, size_t begin, size_t end) {
    U64(end - begin);
    for (size_t i = begin; i < end; ++i) {
      U64(path[i].hashes.size());
      for (const auto& h : path[i].hashes) Dom(h);
      U64(path[i].index);
    }
  }
  void Proof(const MerkleProof& p, const char* name) {
    size_t levels = p.path.size();
    U32(uint32_t(p.kind));
    switch (p.kind) {
      case MerkleProofKind::kSingle:
        Dom(p.root);
        Dom(p.leaf);
        Path(p.path, 0, levels);
        return;
      case MerkleProofKind::kSub:
        if (levels < 1) throw std::invalid_argument(std::string(name) + ": a Sub proof needs at least 1 level");
        Path(p.path, 0, levels - 1);
        Path(p.path, levels - 1, levels);
        break;
      case MerkleProofKind::kTop:
        if (levels < 2) throw std::invalid_argument(std::string(name) + ": a Top proof needs at least 2 levels");
        Path(p.path, 0, levels - 2);
        Path(p.path, levels - 2, levels - 1);
        Path(p.path, levels - 1, levels);
        break;
      default: throw std::invalid_argument(std::string(name) + ": unknown proof kind");
    }
    Dom(p.root);
    Dom(p.leaf);
  }
  std::vector<uint8_t> Take() { return std::move(out_); }

 private:
  void Le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

// ---- reader ---------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}

  size_t pos() const { return pos_; }

  [[noreturn]] void Fail(const Field& f, size_t at, const std::string& msg) const {
    throw BincodeError(f.ToString(), at, msg);
  }

  void Need(const Field& f, size_t n) const {
    if (in_.size() - pos_ < n) {
      Fail(f, pos_,
           "truncated input: need " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) + ", only " +
               std::to_string(in_.size() - pos_) + " left");
    }
  }
  uint64_t Le(const Field& f, int bytes) {
    Need(f, size_t(bytes));
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(in_[pos_ + size_t(i)]) << (8 * i);
    pos_ += size_t(bytes);
    return v;
  }
  Domain Dom(const Field& f) {
    Need(f, kDomainBytes);
    Domain d;
    std::memcpy(d.data(), in_.data() + pos_, kDomainBytes);
    if (!IsCanonical(d)) {
      Fail(f, pos_, "value " + DomainToHex(d) + " is not a canonical little-endian BLS12-381 scalar (>= modulus)");
    }
    pos_ += kDomainBytes;
    return d;
  }
  // A u64 length that must equal `expected` (checked before anything is allocated).
  void Length(const Field& f, uint64_t expected, const std::string& why) {
    size_t at = pos_;
    uint64_t n = Le(f, 8);
    if (n != expected) {
      Fail(f, at, "length " + std::to_string(n) + ", expected " + std::to_string(expected) + " (" + why + ")");
    }
  }

  void Path(const Field& f, const std::vector<unsigned>& arities, size_t begin, size_t end,
            const std::string& description, std::vector<PathElement>& out) {
    Field path_field{&f, "path"};
    Length(path_field, end - begin,
           std::to_string(end - begin) + " levels in this part of a " + description + " proof");
    for (size_t i = begin; i < end; ++i) {
      Field elem{&f, "path", int64_t(i - begin)};
      PathElement e;
      Field hashes{&elem, "hashes"};
      unsigned arity = arities[i];
      Length(hashes, arity - 1, "siblings of an arity-" + std::to_string(arity) + " level");
      e.hashes.resize(arity - 1);
      for (unsigned j = 0; j < arity - 1; ++j) e.hashes[j] = Dom(Field{&elem, "hashes", int64_t(j)});
      Field index{&elem, "index"};
      size_t at = pos_;
      e.index = Le(index, 8);
      if (e.index >= arity) {
        Fail(index, at,
             "value " + std::to_string(e.index) + " out of range for an arity-" + std::to_string(arity) + " level");
      }
      out.push_back(std::move(e));
    }
  }

  MerkleProof Proof(const Field& f, const ProofLayout& layout) {
    MerkleProof p;
    Field variant{&f, "variant"};
    size_t at = pos_;
    uint64_t kind = Le(variant, 4);
    if (kind != uint64_t(layout.kind)) {
      Fail(variant, at,
           "ProofData variant " + std::to_string(kind) + " (" + KindName(kind) + "), expected " +
               std::to_string(uint32_t(layout.kind)) + " (" + KindName(uint32_t(layout.kind)) + ") for a " +
               layout.description);
    }
    p.kind = layout.kind;
    size_t levels = layout.arities.size();
    p.path.reserve(levels);
    if (layout.kind == MerkleProofKind::kSingle) {
      p.root = Dom(Field{&f, "root"});
      p.leaf = Dom(Field{&f, "leaf"});
      Path(f, layout.arities, 0, levels, layout.description, p.path);  // "proof_d_new.path[i]"
      return p;
    }
    size_t base_end = levels - (layout.kind == MerkleProofKind::kTop ? 2 : 1);
    Path(Field{&f, "base_proof"}, layout.arities, 0, base_end, layout.description, p.path);
    Path(Field{&f, "sub_proof"}, layout.arities, base_end, base_end + 1, layout.description, p.path);
    if (layout.kind == MerkleProofKind::kTop) {
      Path(Field{&f, "top_proof"}, layout.arities, base_end + 1, base_end + 2, layout.description, p.path);
    }
    p.root = Dom(Field{&f, "root"});
    p.leaf = Dom(Field{&f, "leaf"});
    return p;
  }

  void End() const {
    if (pos_ != in_.size()) {
      Fail(Field{nullptr, "(end)"}, pos_,
           std::to_string(in_.size() - pos_) + " trailing bytes after a complete PartitionProof");
    }
  }

 private:
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

}  // namespace

BincodeError::BincodeError(std::string field, size_t offset, const std::string& message)
    : std::runtime_error("vanilla PartitionProof: " + field + ": " + message),
      field_(std::move(field)),
      offset_(offset) {}

size_t PartitionProofSize(const SectorShape& shape) {
  size_t per_challenge = 2 * MerkleProofSize(TreeRLayout(shape)) + MerkleProofSize(TreeDLayout(shape));
  return kDomainBytes + 8 + shape.apex_leaf_count * kDomainBytes + 8 + shape.challenge_count * per_challenge;
}

std::vector<uint8_t> WritePartitionProof(const PartitionProof& proof) {
  Writer w;
  w.Dom(proof.comm_c);
  w.U64(proof.apex_leafs.size());
  for (const auto& d : proof.apex_leafs) w.Dom(d);
  w.U64(proof.challenge_proofs.size());
  for (const auto& c : proof.challenge_proofs) {
    w.Proof(c.proof_r_old, "proof_r_old");
    w.Proof(c.proof_d_new, "proof_d_new");
    w.Proof(c.proof_r_new, "proof_r_new");
  }
  return w.Take();
}

PartitionProof ReadPartitionProof(std::span<const uint8_t> bytes, const SectorShape& shape) {
  const ProofLayout tree_r = TreeRLayout(shape);
  const ProofLayout tree_d = TreeDLayout(shape);
  Reader r(bytes);
  PartitionProof p;
  p.comm_c = r.Dom(Field{nullptr, "comm_c"});

  Field apex{nullptr, "apex_leafs"};
  r.Length(apex, shape.apex_leaf_count, "apex leaf count of a " + shape.Name() + " sector");
  p.apex_leafs.resize(shape.apex_leaf_count);
  for (unsigned i = 0; i < shape.apex_leaf_count; ++i)
    p.apex_leafs[i] = r.Dom(Field{nullptr, "apex_leafs", int64_t(i)});

  Field challenges{nullptr, "challenge_proofs"};
  r.Length(challenges, shape.challenge_count, "challenges per partition of a " + shape.Name() + " sector");
  p.challenge_proofs.resize(shape.challenge_count);
  for (unsigned i = 0; i < shape.challenge_count; ++i) {
    Field c{nullptr, "challenge_proofs", int64_t(i)};
    auto& cp = p.challenge_proofs[i];
    cp.proof_r_old = r.Proof(Field{&c, "proof_r_old"}, tree_r);
    cp.proof_d_new = r.Proof(Field{&c, "proof_d_new"}, tree_d);
    cp.proof_r_new = r.Proof(Field{&c, "proof_r_new"}, tree_r);
  }
  r.End();
  return p;
}

}  // namespace cuzk::filecoin
