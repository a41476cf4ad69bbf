#pragma once
// SectorShape: every size-derived parameter of a SnapDeals (EmptySectorUpdate)
// sector, computed from the sector size in bytes (snapdeals spec section 1).
//
//   auto shape = cuzk::filecoin::SectorShape::FromSectorSize(32ull << 30);
//   shape.partitions == 16; shape.challenge_count == 86; shape.TreeRArities() == {8 x 9, 8}
//
// Supported sizes: the production sizes (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB)
// and the rust-fil-proofs test sizes (1, 4, 8, 16, 32 KiB, 16 MiB). Anything
// else throws std::invalid_argument naming the supported sizes.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::filecoin {

// How a Merkle proof is serialized (rust-fil-proofs ProofData variant index):
// TreeD proofs are always Single; TreeR proofs follow the tree configuration.
enum class MerkleProofKind : uint32_t { kSingle = 0, kSub = 1, kTop = 2 };

struct SectorShape {
  uint64_t sector_bytes = 0;
  uint64_t nodes = 0;              // 32-byte nodes
  unsigned challenge_bit_len = 0;  // cbl = log2(nodes)
  // TreeR: base_levels levels of arity 8 (from the leaves), then one level of
  // sub_arity (if non-zero), then one level of top_arity (if non-zero).
  unsigned base_arity = 8;
  unsigned sub_arity = 0;
  unsigned top_arity = 0;
  unsigned base_levels = 0;
  unsigned partitions = 0;              // P
  unsigned partition_bit_len = 0;       // pbl = log2(P)
  unsigned challenge_count = 0;         // CC, per partition
  unsigned apex_leaf_count = 0;         // A
  unsigned apex_bit_len = 0;            // abl = log2(A)
  unsigned challenge_random_bits = 0;   // rb = cbl - pbl
  unsigned challenges_per_digest = 0;   // cpd = floor(254 / rb)
  unsigned digests_per_partition = 0;   // dpp = ceil(CC / cpd)
  unsigned apex_levels = 0;             // L = cbl - pbl - abl (TreeD levels from a leaf to its apex leaf)
  std::array<unsigned, 6> h_choices{};  // hs
  unsigned h = 0;                       // the h in use (default: hs[3] for large sectors, 1 for small)
  unsigned h_select = 0;                // 1 << (index of the first entry of hs equal to h)

  // Throws std::invalid_argument for unsupported sizes.
  static SectorShape FromSectorSize(uint64_t sector_bytes);
  // The same shape with another h; it must be one of h_choices.
  SectorShape WithH(unsigned new_h) const;

  // Arity of every TreeR level from the leaves up (base levels, sub, top).
  std::vector<unsigned> TreeRArities() const;
  unsigned TreeRLevels() const { return base_levels + (sub_arity ? 1 : 0) + (top_arity ? 1 : 0); }
  MerkleProofKind TreeRKind() const {
    return top_arity ? MerkleProofKind::kTop : sub_arity ? MerkleProofKind::kSub : MerkleProofKind::kSingle;
  }
  // Public input 1: k | (h_select << pbl).
  uint64_t KAndHSelect(unsigned k) const { return uint64_t(k) | (uint64_t(h_select) << partition_bit_len); }
  // "2KiB", "32GiB", ...
  std::string Name() const;
};

// Every supported sector size in bytes, ascending.
const std::vector<uint64_t>& SupportedSectorSizes();

// Parses "2KiB", "8MiB", "32GiB", "2k", "2048" (case-insensitive; K/M/G suffixes are
// binary units, with or without "iB"/"B"). Throws std::invalid_argument.
uint64_t ParseSectorSize(std::string_view text);

// "2KiB" etc. for a power-of-two-ish byte count (any count: falls back to bytes).
std::string FormatSectorSize(uint64_t bytes);

}  // namespace cuzk::filecoin
