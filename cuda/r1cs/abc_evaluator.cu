#include "cuda/r1cs/abc_evaluator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/r1cs/abc_steps.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace cuzk::cuda {

using r1cs_steps::CircuitView;
using r1cs_steps::MatrixView;
using r1cs_steps::WitnessView;

namespace {

static_assert(r1cs_steps::kCodeOne == r1cs::kCoefficientOne &&
              r1cs_steps::kCodeMinusOne == r1cs::kCoefficientMinusOne && r1cs_steps::kCodeEscape == r1cs::kEscapeCode);
static_assert(r1cs_steps::kVariablesPerWord == r1cs::CompactWitness::kVariablesPerWord &&
              r1cs_steps::kWordsPerChunk == r1cs::CompactWitness::kWordsPerChunk);

constexpr unsigned kBlock = 256;

// Grid-stride loops over ~8 blocks per SM (132 SMs on the H200): enough to
// hide the scattered z loads of the row dots.
unsigned Blocks(size_t n) { return unsigned(std::min<size_t>((n + kBlock - 1) / kBlock, 132 * 8)); }

__global__ void ExpandWitnessKernel(WitnessView w, Fr* z) {
  for (uint64_t v = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; v < w.num_variables;
       v += uint64_t(gridDim.x) * blockDim.x) {
    r1cs_steps::ExpandWitnessStep(v, w, z);
  }
}

__global__ void EvaluateAbcKernel(CircuitView cv, const Fr* z, const uint32_t* classes, Fr* a, Fr* b, Fr* c, uint64_t m,
                                  unsigned long long* first_bad) {
  for (uint64_t row = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; row < m;
       row += uint64_t(gridDim.x) * blockDim.x) {
    if (!r1cs_steps::EvaluateRowStep(row, cv, z, classes, a, b, c)) atomicMin(first_bad, (unsigned long long)row);
  }
}

template <class T>
DeviceBuffer<T> Upload(const std::vector<T>& host) {
  DeviceBuffer<T> d(host.size());
  if (!host.empty())
    CUZK_CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

DeviceMatrix UploadMatrix(const r1cs::CompactMatrix& m) {
  return {Upload(m.row_offsets), Upload(m.columns), Upload(m.escape_positions), Upload(m.codes),
          Upload(m.escape_values)};
}

MatrixView ViewOf(const DeviceMatrix& m) {
  return {m.row_offsets.data(),
          m.columns.data(),
          m.codes.data(),
          m.escape_positions.data(),
          reinterpret_cast<const Fr*>(m.escape_values.data()),
          uint32_t(m.escape_positions.size())};
}

template <class T>
void Grow(DeviceBuffer<T>& b, size_t count) {
  if (b.size() >= count) return;
  b.Reset();
  b = DeviceBuffer<T>(count);
}

}  // namespace

DeviceCircuit::DeviceCircuit(const r1cs::CompactCircuit& cc)
    : coefficients_(Upload(cc.coefficients)),
      a_(UploadMatrix(cc.a)),
      b_(UploadMatrix(cc.b)),
      c_(UploadMatrix(cc.c)),
      num_constraints_(cc.num_constraints()),
      num_inputs_(cc.num_inputs),
      num_variables_(cc.num_variables()),
      bytes_(cc.Bytes()) {}

AbcEvaluator::AbcEvaluator() : first_bad_(1) {}

size_t AbcEvaluator::ExpandWitness(const r1cs::CompactWitness& w, ff::Fr* z, cudaStream_t stream) {
  expanded_z_ = nullptr, expanded_variables_ = 0;
  if (w.num_variables == 0) return 0;
  Grow(classes_, w.classes.size());
  Grow(chunk_others_, w.chunk_others.size());
  Grow(others_, std::max<size_t>(w.others.size(), 1));
  classes_.CopyFromHost(w.classes, stream);
  chunk_others_.CopyFromHost(w.chunk_others, stream);
  if (!w.others.empty()) others_.CopyFromHost(w.others, stream);
  const WitnessView view{classes_.data(), chunk_others_.data(), reinterpret_cast<const Fr*>(others_.data()),
                         w.num_variables};
  ExpandWitnessKernel<<<Blocks(w.num_variables), kBlock, 0, stream>>>(view, reinterpret_cast<Fr*>(z));
  CUZK_CUDA_CHECK(cudaGetLastError());
  expanded_z_ = z, expanded_variables_ = w.num_variables;
  return w.Bytes();
}

std::optional<uint64_t> AbcEvaluator::EvaluateAbc(const DeviceCircuit& circuit, const ff::Fr* z, ff::Fr* a, ff::Fr* b,
                                                  ff::Fr* c, size_t m, cudaStream_t stream, bool z_is_expanded) {
  if (m < circuit.num_prover_rows()) {
    throw std::invalid_argument("AbcEvaluator: domain " + std::to_string(m) + " < " +
                                std::to_string(circuit.num_prover_rows()) + " rows");
  }
  // The classes describe z only when z is what the last ExpandWitness wrote
  // (the caller's word for "nothing since"; the pointer and count checked).
  if (z_is_expanded && (z != expanded_z_ || expanded_variables_ != circuit.num_variables())) {
    throw std::logic_error("AbcEvaluator: z is not the last ExpandWitness's output for this circuit");
  }
  const uint32_t* classes = z_is_expanded ? classes_.data() : nullptr;
  const CircuitView cv{reinterpret_cast<const Fr*>(circuit.coefficients_.data()),
                       ViewOf(circuit.a_),
                       ViewOf(circuit.b_),
                       ViewOf(circuit.c_),
                       circuit.num_constraints_,
                       circuit.num_inputs_};
  CUZK_CUDA_CHECK(cudaMemsetAsync(first_bad_.data(), 0xff, sizeof(unsigned long long), stream));
  EvaluateAbcKernel<<<Blocks(m), kBlock, 0, stream>>>(cv, reinterpret_cast<const Fr*>(z), classes,
                                                      reinterpret_cast<Fr*>(a), reinterpret_cast<Fr*>(b),
                                                      reinterpret_cast<Fr*>(c), m, first_bad_.data());
  CUZK_CUDA_CHECK(cudaGetLastError());
  unsigned long long first = 0;
  CUZK_CUDA_CHECK(cudaMemcpyAsync(&first, first_bad_.data(), sizeof first, cudaMemcpyDeviceToHost, stream));
  CUZK_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (first == ~0ull) return std::nullopt;
  return uint64_t(first);
}

}  // namespace cuzk::cuda
