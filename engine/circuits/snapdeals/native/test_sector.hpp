#pragma once
// Deterministic SnapDeals test sectors and their vanilla proofs (what
// `cuzk-cli snap gen-vanilla` writes). From a seed it builds an old replica
// and new data, TreeD (SHA-256) over the data, TreeR (Poseidon, 8-ary base
// levels, then the sub and top arities) over the old and the new replica, the
// encoding label_r_new = label_r_old + label_d_new * rho, the commitments, the
// challenges of every partition and their PartitionProofs, and (by default)
// checks every proof with the native verifier.
//
//   TestSectorOptions opt;
//   opt.sector_bytes = 2048; opt.seed = 7;
//   TestSector s = GenerateTestSector(opt);
//   s.partition_proofs[0]  // for partition s.partition_indices[0]
//
// Content: node i of the data and of the old replica is 32 bytes from a
// counter-based generator keyed by (seed, stream, i), with the top two bits
// cleared (a canonical Fr, like fr32-padded data); comm_c is such a value too.
//
// Sparse mode (automatic above 32 MiB) never materialises the sector: every
// data node equals one seeded default and every old-replica node another, except
// `sparse_random_nodes` seeded positions that carry their dense-mode content.
// The new replica is then uniform per rho region (2^(cbl-h) nodes), so all
// three trees are LayeredTrees with region defaults plus overrides. Challenged
// leaves mostly hold the defaults (the challenges depend on comm_r_new, so no
// choice of content can target them); their paths are still exact.
// Cost: 2 KiB ~10 ms, 8 MiB ~seconds (dense), 32 GiB sparse ~1 s + ~0.2 s per
// partition (mostly Poseidon).
#include <cstdint>
#include <vector>

#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof.hpp"

namespace cuzk::snapdeals {

struct TestSectorOptions {
  uint64_t sector_bytes = 2048;
  uint64_t seed = 0;
  enum class Mode { kAuto, kDense, kSparse };
  Mode mode = Mode::kAuto;            // kAuto: dense up to kMaxAutoDenseBytes, sparse above
  unsigned h = 0;                     // 0: the shape's default h
  std::vector<unsigned> partitions;   // empty: all, in order
  uint64_t sparse_random_nodes = 64;  // sparse mode: nodes with individual content
  bool self_check = true;             // verify every proof before returning
  unsigned threads = 0;               // 0: all hardware threads

  static constexpr uint64_t kMaxAutoDenseBytes = uint64_t(32) << 20;
};

struct TestSector {
  filecoin::SectorShape shape;
  bool sparse = false;
  filecoin::Domain comm_c{};
  filecoin::Domain root_r_old{};
  filecoin::Domain root_r_new{};
  filecoin::Commitments commitments;
  std::vector<unsigned> partition_indices;
  std::vector<filecoin::PartitionProof> partition_proofs;  // parallel to partition_indices
};

// Throws std::invalid_argument for bad options (size, h, partition index) and
// std::logic_error if the self-check fails (a bug, never expected).
TestSector GenerateTestSector(const TestSectorOptions& options);

// The seeded content of node `index` in one of the streams above (exposed for tests).
enum class TestSectorStream : uint64_t {
  kData = 1,
  kOldReplica = 2,
  kCommC = 3,
  kSparsePositions = 4,
  kSparseDefaults = 5
};
filecoin::Domain TestSectorNode(uint64_t seed, TestSectorStream stream, uint64_t index);

}  // namespace cuzk::snapdeals
