#pragma once
// Launchers of the GPU MSM kernels: each runs one step of msm_steps.hpp with
// one thread per index, on `stream`, and checks the launch. Called by Msm
// (msm_impl.hpp); plain C++ declarations so that the orchestration compiles
// with the host compiler. The point launchers are templates over the point
// field F, instantiated for Fp (G1) in g1_msm_kernels.cu and for Fp2 (G2) in
// g2_msm_kernels.cu (one curve per translation unit: nvcc time stays short).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/msm/msm_steps.hpp"

namespace cuzk::cuda::pippenger {

// The scalar side (msm_scalars.cu), curve-independent: steps 1a-1c and 2.
// ones != nullptr: the bit-witness split (step 1').
void LaunchClassify(size_t n, const Fr* scalars, const uint64_t* words, Fr* canon, uint32_t* flags, uint32_t* ones,
                    cudaStream_t stream);
void LaunchOnesIndex(size_t n, const uint32_t* ones, const uint32_t* offsets, const uint64_t* words,
                     const uint32_t* ranks, uint32_t* indices, cudaStream_t stream);
void LaunchCountDigits(size_t n, const Layout& layout, const Fr* canon, uint32_t* counts, cudaStream_t stream);
void LaunchDigits(size_t n, const Layout& layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                  const uint32_t* offsets, uint32_t* keys, uint32_t* vals, cudaStream_t stream);
// Step 1c window-major (WindowDigitsStep): n W entries, entry (w, i) at w n + i.
void LaunchWindowDigits(size_t n, const Layout& layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                        uint32_t* keys, uint32_t* vals, cudaStream_t stream);
// out = exclusive prefix sums of in (n >= 1 values); returns the total
// (in[n-1] + out[n-1], read back: waits for the stream). `temp` must hold
// ScanTempBytes(n).
size_t ScanTempBytes(size_t n);
size_t ExclusiveSumTotal(void* temp, size_t temp_bytes, const uint32_t* in, uint32_t* out, size_t n,
                         cudaStream_t stream);
// Radix sort of m (key, value) pairs by key bits [0, end_bit) (CUB onesweep,
// stable). keys[0]/vals[0] hold the input; returns the index (0 or 1) of the
// buffers that hold the result. `temp` must hold SortTempBytes(m, end_bit).
size_t SortTempBytes(size_t m, int end_bit);
int SortPairs(void* temp, size_t temp_bytes, uint32_t* const keys[2], uint32_t* const vals[2], size_t m, int end_bit,
              cudaStream_t stream);
// The window-major entries: each window's n pairs sorted apart by key bits
// [0, c - 1) (its keys share the bits above). `temp` must hold
// SortTempBytes(n, c - 1). Returns the buffer index as SortPairs does.
int SortPairsByWindow(void* temp, size_t temp_bytes, uint32_t* const keys[2], uint32_t* const vals[2], size_t n,
                      const Layout& layout, cudaStream_t stream);

// The point side.
template <class F>
void LaunchAccumulate(size_t chunks, size_t chunk, size_t m, uint32_t sentinel, const uint32_t* keys,
                      const uint32_t* vals, const AffinePoint<F>* bases, XyzzPoint<F>* buckets, XyzzPoint<F>* partials,
                      uint32_t* partial_keys, cudaStream_t stream);
// Step 3, batched affine: `batch` (8, 16 or 32) chunks per thread.
template <class F>
void LaunchAccumulateBatched(uint32_t batch, size_t chunks, size_t chunk, size_t m, uint32_t sentinel,
                             const uint32_t* keys, const uint32_t* vals, const AffinePoint<F>* bases,
                             XyzzPoint<F>* buckets, XyzzPoint<F>* partials, uint32_t* partial_keys,
                             cudaStream_t stream);
// Step 1': `chunks` sums of `chunk` consecutive entries of indices[0, count).
template <class F>
void LaunchOnesSum(size_t chunks, size_t chunk, size_t count, const uint32_t* indices, const AffinePoint<F>* bases,
                   XyzzPoint<F>* sums, cudaStream_t stream);
// Steps 4a (all passes) and 4b; partials are overwritten.
template <class F>
void LaunchFixup(size_t chunks, uint32_t sentinel, XyzzPoint<F>* partials, const uint32_t* partial_keys,
                 XyzzPoint<F>* buckets, cudaStream_t stream);
// Step 4c: buckets[t] += more[t] for t < count.
template <class F>
void LaunchAddBuckets(size_t count, const XyzzPoint<F>* more, XyzzPoint<F>* buckets, cudaStream_t stream);
template <class F>
void LaunchSegments(const Layout& layout, uint32_t segment_len, const XyzzPoint<F>* buckets, XyzzPoint<F>* out,
                    cudaStream_t stream);
// Per window: in_per_window points -> ceil(in_per_window / group) sums.
template <class F>
void LaunchGroupSum(uint32_t windows, uint32_t in_per_window, uint32_t group, const XyzzPoint<F>* in, XyzzPoint<F>* out,
                    cudaStream_t stream);

}  // namespace cuzk::cuda::pippenger
