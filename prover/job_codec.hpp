#pragma once
// The inputs of a ProofJob as bytes, so that the job journal can queue an
// accepted job again after a crash: a small versioned binary format of our
// own (prover/ is free of protobuf), little-endian, length-prefixed.
//
//   std::vector<uint8_t> bytes = EncodeJobInputs(*job, "snap-2k");
//   DecodedJobInputs back = DecodeJobInputs(bytes);   // JobCodecError on anything malformed
//   back.job->partitions == job->partitions; back.circuit_id == "snap-2k"
//
// Layout, version 1:
//   "CZKJ" u32 version u32 kind u32 priority  str circuit_id
//   SNAP_DEALS_UPDATE: u64 sector_bytes u32 h  32B comm_r_old 32B comm_d_new 32B comm_r_new
//                      u32 partitions, each: u64 length + bincode PartitionProof (the wire form)
//   GENERIC_R1CS:      u64 values, each: 32B canonical little-endian Fr (ONE first)
//   (str = u32 length + bytes)
// The decoder treats the bytes as untrusted (a damaged journal row): every
// length is checked against what is left, vanilla proofs go through the
// engine's validating bincode reader, and trailing bytes are refused.
// Cost: a 2 KiB job is ~15 KB; a 32 GiB job is its vanilla proofs' size.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prover/job.hpp"

namespace cuzk::prover {

class JobCodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr uint32_t kJobCodecVersion = 1;

// The job's kind, priority and inputs (not its id, params or token).
std::vector<uint8_t> EncodeJobInputs(const ProofJob& job, const std::string& circuit_id);

struct DecodedJobInputs {
  std::shared_ptr<ProofJob> job;  // without id, params or submit time
  std::string circuit_id;
};
DecodedJobInputs DecodeJobInputs(std::span<const uint8_t> bytes);

}  // namespace cuzk::prover
