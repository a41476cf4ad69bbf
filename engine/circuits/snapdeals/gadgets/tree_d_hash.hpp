#pragma once
// The TreeD node hash in circuit (rust-fil-proofs filecoin-hashers sha256.rs
// hash2_circuit / hash_multi_leaf_circuit with two leaves): sha256 of the two
// 32-byte little-endian encodings, with the digest's top two bits dropped.
//
//   Variable parent = TreeDHash2(cs, left, right);
//
// Shape (snapdeals spec 6.2): to_bits_le(x), to_bits_le(y) (2 x 255 bits and
// one unpacking row each); each 255-bit list + Const(0) is 32 bytes, fed to
// SHA-256 byte by byte, each byte most significant bit first; the digest's
// bits are reversed inside each byte (= the digest read as a little-endian
// number), the first 254 packed. 45,379 rows, 45,331 aux per node.
#include <array>
#include <span>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/num.hpp"
#include "engine/circuits/snapdeals/gadgets/sha256.hpp"

namespace cuzk::snapdeals::gadgets {

inline constexpr uint64_t kTreeDHashConstraints = 45379;
inline constexpr uint64_t kTreeDHashAux = 45331;

template <class CS>
Variable TreeDHash2(CS& cs, Variable x, Variable y) {
  std::vector<AllocatedBit> x_bits, y_bits;
  {
    auto ns = r1cs::Namespace(cs, "left bits");
    x_bits = ToBitsLe(cs, x);
  }
  {
    auto ns = r1cs::Namespace(cs, "right bits");
    y_bits = ToBitsLe(cs, y);
  }
  std::vector<Boolean> preimage;
  preimage.reserve(512);
  for (const auto* bits : {&x_bits, &y_bits}) {
    std::array<Boolean, 256> le;  // le[255] stays Constant(false)
    for (size_t i = 0; i < bits->size(); ++i) le[i] = Boolean::Is((*bits)[i]);
    for (unsigned byte = 0; byte < 32; ++byte)
      for (int j = 7; j >= 0; --j) preimage.push_back(le[8 * byte + unsigned(j)]);
  }
  std::vector<Boolean> digest;
  {
    auto ns = r1cs::Namespace(cs, "sha256");
    digest = Sha256(cs, preimage);
  }
  std::vector<Boolean> le;
  le.reserve(kFrCapacity);
  for (unsigned byte = 0; byte < 32 && le.size() < kFrCapacity; ++byte)
    for (unsigned j = 0; j < 8 && le.size() < kFrCapacity; ++j) le.push_back(digest[8 * byte + 7 - j]);
  auto ns = r1cs::Namespace(cs, "pack_le");
  return PackBits(cs, le);
}

}  // namespace cuzk::snapdeals::gadgets
