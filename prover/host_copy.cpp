#include "prover/host_copy.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

namespace cuzk::prover {
namespace {

// The whole pages strictly between the first and the last element of v.
template <class T, class Alloc>
uint64_t ReleaseInterior(const std::vector<T, Alloc>& v) {
  if (v.size() < 3) return 0;
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t data = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t begin = (data + sizeof(T) + page - 1) / page * page;
  const uintptr_t end = (data + (v.size() - 1) * sizeof(T)) / page * page;
  if (end <= begin) return 0;
  // Private anonymous memory (malloc): the pages are freed now and read as
  // zeros if touched again. Nothing is written back anywhere.
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) != 0) return 0;
  return end - begin;
}

uint64_t ReleaseMatrix(const r1cs::CsrMatrix& m) {
  return ReleaseInterior(m.row_offsets) + ReleaseInterior(m.columns) + ReleaseInterior(m.values);
}

uint64_t ReleaseCompact(const r1cs::CompactMatrix& m) {
  return ReleaseInterior(m.row_offsets) + ReleaseInterior(m.columns) + ReleaseInterior(m.codes) +
         ReleaseInterior(m.escape_positions) + ReleaseInterior(m.escape_values);
}

}  // namespace

HostRelease ReleaseHostCopy(const LoadedParams& p, bool circuit) {
  if (p.host_released.exchange(true)) return {};
  HostRelease r;
  const groth16::ProvingKey& k = p.pk;
  // A set loaded straight to the devices never had its points or matrices
  // in host memory (their bytes were counted released at load).
  if (!p.on_devices_only) {
    r.bytes = ReleaseInterior(k.h) + ReleaseInterior(k.l) + ReleaseInterior(k.a) + ReleaseInterior(k.b_g1) +
              ReleaseInterior(k.b_g2);
  }
  if (circuit) {
    p.circuit_released.store(true);
    if (!p.on_devices_only)
      r.bytes += ReleaseMatrix(p.circuit.a) + ReleaseMatrix(p.circuit.b) + ReleaseMatrix(p.circuit.c);
    // The compact form went to the GPUs with the circuit (the image writer,
    // which builds its own, is done by now: LoadedParams::host_readers).
    if (p.compact)
      r.bytes += ReleaseCompact(p.compact->a) + ReleaseCompact(p.compact->b) + ReleaseCompact(p.compact->c);
    r.circuit = true;
  }
  p.released_bytes.fetch_add(r.bytes);
  return r;
}

}  // namespace cuzk::prover
