#pragma once
// The cuzk-gpu-bench commands, callable from another tool (cuzk-bench
// kernels links them in CUDA builds). Each prints its own log and table and
// returns 0 when every check passed; with a Summary, the ntt and msm runners
// also add one row per size for `kernels`' closing table.
#include "tools/cuzk-gpu-bench/bench_util.hpp"

namespace cuzk::gpubench {

int RunField(const Args& args);                            // field_bench.cpp
int RunNtt(const Args& args, Summary* summary = nullptr);  // ntt_bench.cpp
int RunMsm(const Args& args, Summary* summary = nullptr);  // msm_bench.cpp
int RunH(const Args& args);                                // h_bench.cpp: six NTTs against seven
// NTT, G1 and G2 MSM at the given sizes, each checked against the CPU
// backend, and H2D bandwidth from pinned memory; ends with one table.
int RunKernels(const Args& args);  // kernels_bench.cpp
// One SnapDeals partition proved as the daemon proves it, step by step, with
// and without the H bases' window shifts; every proof verified.
int RunPartition(const Args& args);  // partition_bench.cpp
// G1 records of 48 bytes made affine on the device: throughput, every point checked.
int RunDecompress(const Args& args);  // decompress_bench.cpp

}  // namespace cuzk::gpubench
