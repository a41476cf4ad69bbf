#pragma once
// CUZK_HD marks functions that compile for both the host and the device. The
// field types in cuda/ff are written once with it: nvcc builds the device
// version (PTX carry chains), and any C++ compiler builds the host version
// (the same carry chains emulated), so the device algorithm is unit-tested on
// machines without a GPU.
#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_HD inline
#define CUZK_UNROLL
#endif

// For the rare large functions worth one out-of-line copy on the device
// (a call instead of tens of thousands of inlined instructions per site).
#if defined(__CUDACC__)
#define CUZK_HD_NOINLINE __host__ __device__ __noinline__
#else
#define CUZK_HD_NOINLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define CUZK_DEVICE_PASS 1
#else
#define CUZK_DEVICE_PASS 0
#endif
