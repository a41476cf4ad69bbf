#pragma once
// Witness-only proving on the device: a compiled circuit resident in compact
// form, the witness uploaded compactly and expanded there, and a/b/c
// evaluated straight into the buffers the NTTs transform.
//
//   r1cs::CompactCircuit cc = r1cs::Compact(compiled);          // once per circuit
//   cuda::DeviceCircuit circuit(cc);                             // resident: cc.Bytes() of device memory
//   cuda::AbcEvaluator eval;                                     // per-proof scratch, reused
//   eval.ExpandWitness(r1cs::CompactWitnessOf(z.values), z_dev, stream);
//   std::optional<uint64_t> bad = eval.EvaluateAbc(circuit, z_dev, a_dev, b_dev, c_dev, m, stream);
//   if (bad) ... compiled.RowName(*bad) ...                     // the first row with a b != c
//
// Device buffers hold ff::Fr bytes (Montgomery form, = cuda::Fr). a/b/c are
// m = domain-size elements each, written entirely (rows, the appended input
// rows, zero padding: r1cs::EvaluateAbcInto's layout, bit for bit), so they
// need no clearing and no padding crosses PCIe.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>

#include "cuda/runtime/device_buffer.hpp"
#include "engine/ff/fr.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compact_witness.hpp"

namespace cuzk::cuda {

struct DeviceMatrix {
  DeviceBuffer<uint32_t> row_offsets, columns, escape_positions;
  DeviceBuffer<uint16_t> codes;
  DeviceBuffer<ff::Fr> escape_values;
};

// A CompactCircuit in device memory (uploaded synchronously on construction).
class DeviceCircuit {
 public:
  explicit DeviceCircuit(const r1cs::CompactCircuit& cc);
  uint64_t num_constraints() const { return num_constraints_; }
  uint64_t num_inputs() const { return num_inputs_; }
  uint64_t num_variables() const { return num_variables_; }
  uint64_t num_prover_rows() const { return num_constraints_ + num_inputs_; }
  size_t bytes() const { return bytes_; }

 private:
  friend class AbcEvaluator;
  DeviceBuffer<ff::Fr> coefficients_;
  DeviceMatrix a_, b_, c_;
  uint64_t num_constraints_ = 0, num_inputs_ = 0, num_variables_ = 0;
  size_t bytes_ = 0;
};

// Scratch for one proof at a time (compact witness buffers, grown as needed;
// the failing-row word). Not thread-safe: one per stream.
class AbcEvaluator {
 public:
  AbcEvaluator();
  // Copies the compact witness to the device on `stream` (from pageable
  // memory: synchronous for the host) and expands it into z
  // (w.num_variables elements). Returns the bytes copied.
  size_t ExpandWitness(const r1cs::CompactWitness& w, ff::Fr* z, cudaStream_t stream);
  // a/b/c (m elements each, m >= circuit.num_prover_rows()) from z; waits for
  // the stream and returns the smallest row with a b != c, or nullopt.
  // z_is_expanded: the caller states that z holds exactly what this
  // evaluator's last ExpandWitness wrote, nothing written since; the 0 and 1
  // values are then taken from that compact witness's classes instead of z
  // (r1cs_steps::RowDot; std::logic_error if z is not where it wrote, or
  // holds another count). False: every value is read from z.
  std::optional<uint64_t> EvaluateAbc(const DeviceCircuit& circuit, const ff::Fr* z, ff::Fr* a, ff::Fr* b, ff::Fr* c,
                                      size_t m, cudaStream_t stream, bool z_is_expanded = false);

 private:
  DeviceBuffer<uint32_t> classes_, chunk_others_;
  DeviceBuffer<ff::Fr> others_;
  DeviceBuffer<unsigned long long> first_bad_;
  const ff::Fr* expanded_z_ = nullptr;  // where the last ExpandWitness wrote, and how many values
  uint64_t expanded_variables_ = 0;
};

}  // namespace cuzk::cuda
