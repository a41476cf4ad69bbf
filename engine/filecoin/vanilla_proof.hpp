#pragma once
// The SnapDeals vanilla proof of one partition, as rust-fil-proofs'
// storage-proofs-update PartitionProof (spec section 8). These are plain data;
// vanilla_proof_bincode.hpp reads/writes the wire format, and
// engine/circuits/snapdeals/native/vanilla_verifier.hpp checks the content.
#include <cstdint>
#include <vector>

#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"

namespace cuzk::filecoin {

// One level of a Merkle path: the arity - 1 sibling values left to right (the
// node on the path removed) and the path node's position in its group.
struct PathElement {
  std::vector<Domain> hashes;
  uint64_t index = 0;

  bool operator==(const PathElement&) const = default;
};

// A Merkle inclusion proof. `path` holds every level from the leaf up; for a
// TreeR proof of kind kSub/kTop the last one/two levels are the sub/top levels,
// which the wire format stores as separate sub_proof/top_proof paths.
struct MerkleProof {
  MerkleProofKind kind = MerkleProofKind::kSingle;
  Domain root{};
  Domain leaf{};
  std::vector<PathElement> path;

  bool operator==(const MerkleProof&) const = default;
};

struct ChallengeProof {
  MerkleProof proof_r_old;  // TreeR of the old replica
  MerkleProof proof_d_new;  // TreeD of the new data (binary SHA-256, kSingle)
  MerkleProof proof_r_new;  // TreeR of the new replica

  bool operator==(const ChallengeProof&) const = default;
};

struct PartitionProof {
  Domain comm_c{};
  std::vector<Domain> apex_leafs;                // A TreeD nodes of the row with P*A nodes
  std::vector<ChallengeProof> challenge_proofs;  // CC, in challenge order

  bool operator==(const PartitionProof&) const = default;
};

}  // namespace cuzk::filecoin
