#pragma once
// LayeredTree<Node>: a Merkle tree with a per-level arity (TreeD: all 2; TreeR:
// 8 .. 8, then the sub and top arities), stored either densely or sparsely.
//
// Sparse storage is what lets a 32 GiB test sector exist without 32 GiB: the
// leaves are "region-uniform" (every leaf of an aligned region of
// `region_leaves` leaves has the same default value) except for a few
// overrides. A level whose nodes each cover at most one region then needs one
// value per region plus the ancestors of the overrides; the first level whose
// nodes cover more than one region (or that has at most kDenseLevelMax nodes)
// is materialised, and so is everything above it.
//
//   LayeredTree<Fr>::Leaves leaves = LayeredTree<Fr>::Leaves::Dense(std::move(labels));
//   LayeredTree<Fr> tree(std::move(leaves), shape.TreeRArities(), PoseidonMerkleHash, threads);
//   auto path = tree.Path(node);   // siblings + position per level, leaf level first
//
// Cost: dense = one hash per internal node (parallel per level). Sparse =
// (regions + overrides) hashes per sparse level + the dense top.
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/util/parallel.hpp"

namespace cuzk::snapdeals {

template <class Node>
class LayeredTree {
 public:
  // Levels with at most this many nodes are always stored densely.
  static constexpr uint64_t kDenseLevelMax = 1024;

  using HashFn = std::function<Node(std::span<const Node>)>;

  struct Leaves {
    uint64_t count = 0;
    std::vector<Node> dense;                       // all leaves, or empty for sparse
    uint64_t region_leaves = 0;                    // sparse: power of two dividing count
    std::vector<Node> region_defaults;             // sparse: count / region_leaves values
    std::unordered_map<uint64_t, Node> overrides;  // sparse: leaves that differ from their region default

    static Leaves Dense(std::vector<Node> nodes) {
      Leaves l;
      l.count = nodes.size();
      l.dense = std::move(nodes);
      return l;
    }
    static Leaves Sparse(uint64_t count, uint64_t region_leaves, std::vector<Node> region_defaults,
                         std::unordered_map<uint64_t, Node> overrides) {
      Leaves l;
      l.count = count;
      l.region_leaves = region_leaves;
      l.region_defaults = std::move(region_defaults);
      l.overrides = std::move(overrides);
      return l;
    }
  };

  struct PathLevel {
    std::vector<Node> siblings;  // arity - 1, left to right, the path node removed
    unsigned index = 0;          // the path node's position in its group
  };

  LayeredTree(Leaves leaves, std::vector<unsigned> arities, HashFn hash, unsigned threads = 0)
      : arities_(std::move(arities)), hash_(std::move(hash)), threads_(threads) {
    levels_.push_back(LeafLevel(std::move(leaves)));
    for (unsigned a : arities_) levels_.push_back(NextLevel(levels_.back(), a));
    if (levels_.back().size != 1)
      throw std::invalid_argument("LayeredTree: arities do not reduce the leaves to one root");
  }

  unsigned Height() const { return unsigned(arities_.size()); }  // number of hashed levels
  uint64_t LevelSize(unsigned level) const { return levels_[level].size; }
  Node At(unsigned level, uint64_t index) const { return levels_[level].Get(index); }
  Node Root() const { return levels_.back().Get(0); }
  const std::vector<unsigned>& Arities() const { return arities_; }

  std::vector<PathLevel> Path(uint64_t leaf) const {
    if (leaf >= levels_[0].size) throw std::out_of_range("LayeredTree: leaf index out of range");
    std::vector<PathLevel> path;
    uint64_t j = leaf;
    for (size_t l = 0; l < arities_.size(); ++l) {
      unsigned a = arities_[l];
      uint64_t first = j / a * a;
      PathLevel p;
      p.index = unsigned(j - first);
      for (unsigned i = 0; i < a; ++i) {
        if (first + i != j) p.siblings.push_back(levels_[l].Get(first + i));
      }
      path.push_back(std::move(p));
      j /= a;
    }
    return path;
  }

 private:
  struct Level {
    uint64_t size = 0;
    uint64_t span = 1;  // leaves under one node
    bool dense = true;
    std::vector<Node> nodes;
    uint64_t region_leaves = 0;
    std::vector<Node> region_defaults;
    std::unordered_map<uint64_t, Node> overrides;

    Node Get(uint64_t j) const {
      if (dense) return nodes[j];
      auto it = overrides.find(j);
      if (it != overrides.end()) return it->second;
      return region_defaults[j * span / region_leaves];
    }
  };

  static Level LeafLevel(Leaves leaves) {
    Level l;
    l.size = leaves.count;
    if (!leaves.dense.empty() || leaves.count == 0) {
      l.nodes = std::move(leaves.dense);
      return l;
    }
    uint64_t r = leaves.region_leaves;
    if (r == 0 || (r & (r - 1)) || leaves.count % r || leaves.region_defaults.size() != leaves.count / r) {
      throw std::invalid_argument("LayeredTree: bad sparse leaf regions");
    }
    l.dense = false;
    l.region_leaves = r;
    l.region_defaults = std::move(leaves.region_defaults);
    l.overrides = std::move(leaves.overrides);
    for (const auto& [j, v] : l.overrides) {
      if (j >= l.size) throw std::invalid_argument("LayeredTree: sparse override out of range");
    }
    return l;
  }

  Node HashChildren(const Level& child, uint64_t parent, unsigned arity, std::vector<Node>& buf) const {
    buf.clear();
    for (unsigned i = 0; i < arity; ++i) buf.push_back(child.Get(parent * arity + i));
    return hash_(std::span<const Node>(buf));
  }

  Level NextLevel(const Level& child, unsigned arity) const {
    if (arity < 2 || child.size % arity) throw std::invalid_argument("LayeredTree: level size not divisible by arity");
    Level l;
    l.size = child.size / arity;
    l.span = child.span * arity;
    l.dense = child.dense || l.size <= kDenseLevelMax || l.span > child.region_leaves;
    if (l.dense) {
      l.nodes.resize(l.size);
      util::ParallelForChunks(l.size, threads_, [&](size_t begin, size_t end, size_t) {
        std::vector<Node> buf;
        for (size_t j = begin; j < end; ++j) l.nodes[j] = HashChildren(child, j, arity, buf);
      });
      return l;
    }
    // Every node of this level lies inside one region: its default is the hash of
    // `arity` copies of the child default of the same region.
    l.region_leaves = child.region_leaves;
    l.region_defaults.resize(child.region_defaults.size());
    util::ParallelForChunks(l.region_defaults.size(), threads_, [&](size_t begin, size_t end, size_t) {
      std::vector<Node> buf;
      for (size_t r = begin; r < end; ++r) {
        buf.assign(arity, child.region_defaults[r]);
        l.region_defaults[r] = hash_(std::span<const Node>(buf));
      }
    });
    std::unordered_set<uint64_t> parent_set;
    for (const auto& [j, v] : child.overrides) parent_set.insert(j / arity);
    std::vector<uint64_t> parents(parent_set.begin(), parent_set.end());
    std::vector<Node> values(parents.size());
    util::ParallelForChunks(parents.size(), threads_, [&](size_t begin, size_t end, size_t) {
      std::vector<Node> buf;
      for (size_t i = begin; i < end; ++i) values[i] = HashChildren(child, parents[i], arity, buf);
    });
    for (size_t i = 0; i < parents.size(); ++i) l.overrides.emplace(parents[i], values[i]);
    return l;
  }

  std::vector<unsigned> arities_;
  HashFn hash_;
  unsigned threads_;
  std::vector<Level> levels_;
};

}  // namespace cuzk::snapdeals
