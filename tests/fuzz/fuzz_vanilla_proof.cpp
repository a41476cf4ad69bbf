// libFuzzer target: the bincode SnapDeals PartitionProof reader
// (engine/filecoin/vanilla_proof_bincode.hpp), the bytes Curio sends in
// SubmitProofRequest.vanilla_proofs. Input: one byte choosing the sector shape
// (the supported sizes, 2 KiB first), then the proof bytes.
//
// Oracles: the reader throws only BincodeError (anything else escapes and is a
// crash); a proof it accepts encodes back to exactly the bytes it came from
// (fixed-width bincode has one encoding per value), and has the shape's size.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "engine/filecoin/vanilla_proof_bincode.hpp"

namespace {

const cuzk::filecoin::SectorShape& ShapeFor(uint8_t selector) {
  static const std::vector<cuzk::filecoin::SectorShape> shapes = [] {
    std::vector<cuzk::filecoin::SectorShape> s;
    for (uint64_t bytes : {2ull << 10, 1ull << 10, 4ull << 10, 8ull << 10, 16ull << 10, 32ull << 10, 8ull << 20,
                           16ull << 20, 512ull << 20, 32ull << 30, 64ull << 30}) {
      s.push_back(cuzk::filecoin::SectorShape::FromSectorSize(bytes));
    }
    return s;
  }();
  return shapes[selector % shapes.size()];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto& shape = ShapeFor(data[0]);
  std::span<const uint8_t> bytes(data + 1, size - 1);
  cuzk::filecoin::PartitionProof proof;
  try {
    proof = cuzk::filecoin::ReadPartitionProof(bytes, shape);
  } catch (const cuzk::filecoin::BincodeError& e) {
    if (e.offset() > bytes.size()) std::abort();  // an error must point inside (or just past) the input
    return 0;
  }
  if (bytes.size() != cuzk::filecoin::PartitionProofSize(shape)) std::abort();
  std::vector<uint8_t> again = cuzk::filecoin::WritePartitionProof(proof);
  if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
  return 0;
}
