#include "engine/r1cs/record.hpp"

namespace cuzk::r1cs {

void RecordingCS::AppendRow(CsrMatrix& m, const LinearCombination& lc) {
  for (const auto& t : lc.terms()) {
    if (t.var.is_input()) {
      if (t.var.index() >= num_inputs_) {
        throw SynthesisError("RecordingCS: constraint uses unallocated " + t.var.ToString());
      }
      m.columns.push_back(uint32_t(t.var.index()));
    } else {
      if (t.var.index() >= num_aux_)
        throw SynthesisError("RecordingCS: constraint uses unallocated " + t.var.ToString());
      m.columns.push_back(uint32_t(t.var.index()) | kAuxTag);
    }
    m.values.push_back(t.coeff);
  }
  m.row_offsets.push_back(m.columns.size());
}

CompiledCircuit RecordingCS::Finish() && {
  if (num_inputs_ + num_aux_ > uint64_t(UINT32_MAX)) {
    throw SynthesisError("RecordingCS: more than 2^32 variables do not fit the 32-bit CSR columns");
  }
  CompiledCircuit out = std::move(circuit_);
  out.num_inputs = num_inputs_;
  out.num_aux = num_aux_;
  const uint32_t n_in = uint32_t(num_inputs_);
  // Inputs sort before aux in an LC, so rows stay sorted by global column.
  for (CsrMatrix* m : {&out.a, &out.b, &out.c}) {
    for (auto& col : m->columns) {
      if (col & kAuxTag) col = (col & ~kAuxTag) + n_in;
    }
  }
  ComputeDensities(out);
  return out;
}

}  // namespace cuzk::r1cs
