#pragma once
// Giving a loaded parameter set's host copy back once the GPUs hold theirs
// (issue 17: a loaded 32 GiB set held 55 GB of host memory, 37 GB of key
// points and 18 GB of circuit matrices, that nothing reads once every GPU
// has its own copies and the images are written).
//
// What it does: madvise(MADV_DONTNEED) over the pages of pk's point sections
// (h, l, a, b_g1, b_g2) and, with `circuit`, of the circuit's CSR arrays (and its compact form). The
// vectors themselves are untouched (sizes, pointers), so nothing that counts
// changes and no reader races a reallocation; the pages that held the first
// and the last element of each array are kept, so the CUDA backend's
// fingerprint of a key (its sections' first and last points) still reads
// true values, and malloc's chunk headers beside the data stay. Anything
// else reads zeros afterwards: a proof made from them would fail the
// finalizer's verification, never be returned; the CPU backend refuses a
// released set outright (PartitionWork::GpuStart).
//
// Cost: ~1 s per 50 GB on the kernel side (page table walk); no copy.
#include <cstdint>

#include "prover/srs_registry.hpp"

namespace cuzk::prover {

struct HostRelease {
  uint64_t bytes = 0;    // given back
  bool circuit = false;  // the circuit's matrices were included
};

// Once per set (later calls give back nothing); marks LoadedParams::
// host_released (before the pages go), circuit_released and released_bytes.
HostRelease ReleaseHostCopy(const LoadedParams& params, bool circuit);

}  // namespace cuzk::prover
