// `cuzk-gpu-bench partition`: one SnapDeals partition proved on the GPU the
// way the daemon proves it (witness-only: the compact witness up, a/b/c
// evaluated from the circuit on the device, H, the five MSMs; one lane, so
// each step is timed alone, unlike the daemon's two-lane GPU_TIMING), for
// each --shifted value (CudaBackendOptions::shifted_h: the H MSM over the H
// bases' window shifts or not). Every proof is verified against the
// partition's public inputs, and the variants' proofs are equal byte for byte
// (same r, s). Under ncu, --warmups 0 --repeats 1 gives a per-kernel profile
// of a real partition.
//
// --lanes L (> 1): the backend gets L lanes and L threads prove at once, as
// the daemon's GPU workers do, each `repeats` proofs after its warm-ups: the
// wall time of those gives the GPU's partitions a second with nothing of the
// host's pipeline in it (8 MiB: 4 partitions a sector, so proofs a minute =
// 15 x partitions a second), and --witness-beside-h 0,1 times
// CudaBackendOptions::witness_beside_h against its off switch in one run.
//
//   cuzk-gpu-bench partition [--sector-size 8MiB] [--partition 0] [--shifted 0,1]
//                            [--lanes 1] [--witness-beside-h 1]
//                            [--warmups 1] [--repeats 5] [--seed N]
//
// Set-up (printed, not timed against anything): the test sector
// (snapdeals::GenerateTestSector), the circuit's compilation and compact
// form, the key made with the GPU fixed-base batcher (8 MiB: ~15 s), the
// partition's witness; then per variant a backend and its Prepare (bases,
// circuit, the table).
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda/groth16/cuda_backend.hpp"
#include "cuda/msm/fixed_base.hpp"
#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "tools/cuzk-gpu-bench/runners.hpp"

namespace cuzk::gpubench {
namespace {

using Clock = std::chrono::steady_clock;

struct VariantResult {
  unsigned shifted = 0;
  unsigned beside = 1;    // CudaBackendOptions::witness_beside_h
  double per_second = 0;  // --lanes > 1: timed proofs / their wall time
  double prepare_ms = 0, shift_ms = 0;
  uint64_t shifted_bytes = 0;
  uint32_t shifted_bits = 0;
  std::map<std::string, std::vector<double>> steps;  // PendingProof::steps, plus "prove_start" and "prove_finish"
  std::vector<std::string> order;                    // step names as first seen
  bool verified = true, equal = true;
};

void Add(VariantResult& v, const std::string& name, double ms) {
  if (!v.steps.count(name)) v.order.push_back(name);
  v.steps[name].push_back(ms);
}

}  // namespace

int RunPartition(const Args& args) {
  const uint64_t sector_bytes = filecoin::ParseSectorSize(args.Get("sector-size", "8MiB"));
  const long partition_arg = args.GetInt("partition", 0);
  if (partition_arg < 0 || partition_arg > 1024) throw std::invalid_argument("partition: --partition in 0..1024");
  const unsigned partition = unsigned(partition_arg);
  const std::vector<unsigned> shifteds = args.GetValues("shifted", "0,1");
  const std::vector<unsigned> besides = args.GetValues("witness-beside-h", "1");
  const long lanes_arg = args.GetInt("lanes", 1);
  if (lanes_arg < 1 || lanes_arg > 8) throw std::invalid_argument("partition: --lanes in 1..8");
  const unsigned lanes = unsigned(lanes_arg);
  const int warmups = int(args.GetInt("warmups", 1)), repeats = int(args.GetInt("repeats", 5));
  const uint64_t seed = uint64_t(args.GetInt("seed", long(std::random_device{}() & 0x7fffffff)));
  if (repeats < 1 || warmups < 0) throw std::invalid_argument("partition: --repeats >= 1, --warmups >= 0");
  for (unsigned v : shifteds) {
    if (v > 1) throw std::invalid_argument("partition: --shifted takes 0 and 1");
  }
  for (unsigned v : besides) {
    if (v > 1) throw std::invalid_argument("partition: --witness-beside-h takes 0 and 1");
  }
  std::printf("partition: sector %llu bytes, partition %u, seed=%llu, warmups %d, repeats %d\n",
              (unsigned long long)sector_bytes, partition, (unsigned long long)seed, warmups, repeats);

  auto t0 = Clock::now();
  snapdeals::TestSectorOptions opt;
  opt.sector_bytes = sector_bytes;
  opt.seed = seed;
  opt.partitions = {partition};
  const snapdeals::TestSector sector = snapdeals::GenerateTestSector(opt);
  if (sector.partition_proofs.empty()) throw std::invalid_argument("partition: the sector has no such partition");
  std::printf("sector: generated in %.0f ms\n", MsSince(t0));
  t0 = Clock::now();
  const r1cs::CompiledCircuit circuit = snapdeals::CompileEmptySectorUpdate(sector.shape);
  std::printf("circuit: compiled in %.0f ms, %llu constraints, %llu variables\n", MsSince(t0),
              (unsigned long long)circuit.num_constraints(), (unsigned long long)circuit.num_variables());
  t0 = Clock::now();
  const r1cs::CompactCircuit compact = r1cs::Compact(circuit);
  std::printf("circuit: compact form in %.0f ms, %zu bytes\n", MsSince(t0), compact.Bytes());
  t0 = Clock::now();
  cuda::GpuFixedBaseBatcher batcher;
  const groth16::ProvingKey pk = groth16::GenerateParameters(circuit, {.fixed_base = &batcher});
  const groth16::PreparedVerifyingKey pvk = groth16::PrepareVerifyingKey(pk.vk);
  std::printf("key: set up in %.0f ms (domain %llu, H %zu points)\n", MsSince(t0), (unsigned long long)pk.domain_size(),
              pk.h.size());
  t0 = Clock::now();
  const unsigned k = sector.partition_indices.at(0);
  const snapdeals::CircuitWitness w =
      snapdeals::MakeCircuitWitness(sector.shape, k, sector.commitments, sector.partition_proofs.at(0));
  const r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(sector.shape, w);
  const auto inputs = snapdeals::PartitionPublicInputs(sector.shape, k, sector.commitments).AsArray();
  std::printf("witness: %.0f ms, %zu values\n", MsSince(t0), z.values.size());
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);

  std::vector<VariantResult> results;
  groth16::ProofBytes first{};
  bool have_first = false;
  for (unsigned shifted : shifteds)
    for (unsigned beside : besides) {
      VariantResult v;
      v.shifted = shifted;
      v.beside = beside;
      cuda::CudaBackend gpu({.lanes = lanes, .witness_beside_h = beside != 0, .shifted_h = shifted != 0});
      t0 = Clock::now();
      gpu.Prepare(pk, &circuit, &compact);
      v.prepare_ms = MsSince(t0);
      const cuda::CudaBackendStats prepared = gpu.Stats();
      v.shift_ms = prepared.prepare_shift_ms;
      v.shifted_bytes = prepared.shifted_h_bytes;
      v.shifted_bits = prepared.shifted_h_window_bits;
      std::printf("shifted=%u: Prepare %.0f ms (table %.0f ms, %.1f GB at c = %u)\n", shifted, v.prepare_ms, v.shift_ms,
                  v.shifted_bytes / 1e9, v.shifted_bits);
      // One thread a lane; each proves warmups + repeats times, the timed
      // ones after every thread's warm-ups (a barrier).
      std::mutex result_mu;
      Clock::time_point timed_start = Clock::now(), timed_end;
      auto on_warm = [&]() noexcept { timed_start = Clock::now(); };  // before any thread goes on
      std::barrier warmed(std::ptrdiff_t(lanes), on_warm);
      auto prove = [&]() {
        for (int run = 0; run < warmups + repeats; ++run) {
          if (run == warmups && warmups > 0) warmed.arrive_and_wait();
          groth16::ProverInput in = groth16::PrepareCompactWitnessInput(pk, circuit, z.num_inputs, z.values);
          const auto t_start = Clock::now();
          std::vector<groth16::PendingProof> pending = gpu.ProveStart(pk, std::span(&in, 1));
          const double start_ms = MsSince(t_start);
          std::vector<std::pair<const char*, double>> steps = pending.at(0).steps;
          const auto t_finish = Clock::now();
          const groth16::Proof proof = gpu.ProveFinish(pk, std::move(pending.at(0)), r, s);
          const double finish_ms = MsSince(t_finish);
          const groth16::ProofBytes bytes = groth16::EncodeProof(proof);
          const bool verified = run == 0 ? groth16::Verify(pvk, proof, inputs) : true;
          std::lock_guard lock(result_mu);
          if (!verified) v.verified = false;
          if (!have_first) first = bytes, have_first = true;
          if (bytes != first) v.equal = false;
          if (run < warmups) continue;
          for (const auto& [name, ms] : steps) Add(v, name, ms);
          Add(v, "prove_start", start_ms);
          Add(v, "prove_finish", finish_ms);
          timed_end = std::max(timed_end, Clock::now());
        }
      };
      std::vector<std::thread> threads;
      for (unsigned t = 1; t < lanes; ++t) threads.emplace_back(prove);
      prove();
      for (auto& t : threads) t.join();
      const double wall_ms = std::chrono::duration<double, std::milli>(timed_end - timed_start).count();
      v.per_second = wall_ms > 0 ? double(lanes) * repeats / (wall_ms / 1e3) : 0;
      const cuda::CudaBackendStats done = gpu.Stats();
      std::printf(
          "shifted=%u beside=%u lanes=%u: %llu H MSM(s) over the table; proofs %s, %s the first variant's; %.2f "
          "partitions/s (%d a lane after the warm-ups, %.0f ms)\n",
          shifted, beside, lanes, (unsigned long long)(done.shifted_h_msms), v.verified ? "verified" : "NOT VERIFIED",
          v.equal ? "equal to" : "DIFFERENT FROM", v.per_second, repeats, wall_ms);
      results.push_back(std::move(v));
    }

  std::printf("\n| step (median ms of %u) |", lanes * unsigned(repeats));
  for (const VariantResult& v : results) std::printf(" shifted=%u beside=%u |", v.shifted, v.beside);
  std::printf("\n|---|");
  for (size_t i = 0; i < results.size(); ++i) std::printf("---|");
  std::printf("\n");
  std::vector<std::string> names;
  for (const VariantResult& v : results) {
    for (const std::string& n : v.order) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  for (const std::string& n : names) {
    std::printf("| %s |", n.c_str());
    for (const VariantResult& v : results) {
      auto it = v.steps.find(n);
      if (it == v.steps.end()) {
        std::printf(" - |");
      } else {
        const Stats st = Summarize(it->second);
        std::printf(" %.2f (%.2f..%.2f) |", st.median, st.min, st.max);
      }
    }
    std::printf("\n");
  }
  std::printf("| partitions/s (%u lanes) |", lanes);
  for (const VariantResult& v : results) std::printf(" %.2f |", v.per_second);
  std::printf("\n");
  bool ok = true;
  for (const VariantResult& v : results) ok = ok && v.verified && v.equal;
  std::printf("partition: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace cuzk::gpubench
