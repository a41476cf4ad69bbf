#include "cuda/groth16/cuda_backend.hpp"

#include <bit>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "cuda/groth16/h_kernels.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "cuda/runtime/device_info.hpp"
#include "engine/groth16/h_polynomial.hpp"
#include "engine/msm/msm.hpp"

namespace cuzk::cuda {

using groth16::PendingProof;
using groth16::ProverInput;
using groth16::ProvingKey;

namespace {

// Sizes plus the first and last point of every G1 section: a different key
// that happens to reuse a freed key's address does not match.
struct KeyFingerprint {
  std::vector<ec::G1Affine> points;
  std::vector<ec::G2Affine> g2_points;
  std::vector<size_t> sizes;
  bool operator==(const KeyFingerprint&) const = default;
};

KeyFingerprint FingerprintOf(const ProvingKey& pk) {
  KeyFingerprint f;
  for (const auto* section : {&pk.h, &pk.l, &pk.a, &pk.b_g1}) {
    f.sizes.push_back(section->size());
    if (!section->empty()) f.points.push_back(section->front()), f.points.push_back(section->back());
  }
  f.sizes.push_back(pk.b_g2.size());
  if (!pk.b_g2.empty()) f.g2_points = {pk.b_g2.front(), pk.b_g2.back()};
  return f;
}

// The key's bases in device memory: every G1 section (96 B a point) and,
// when B_g2 runs on the GPU, b_g2 (192 B a point; 32 GiB partition: ~7.5 GB).
struct ResidentKey {
  KeyFingerprint fingerprint;
  G1DeviceBases h, l, a, b_g1;
  std::optional<G2DeviceBases> b_g2;
  ResidentKey(const ProvingKey& pk, bool with_g2)
      : fingerprint(FingerprintOf(pk)), h(pk.h), l(pk.l), a(pk.a), b_g1(pk.b_g1) {
    if (with_g2) b_g2.emplace(pk.b_g2);
  }
};

template <class T>
void Reserve(DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() >= count) return;
  buffer.Reset();
  buffer = DeviceBuffer<T>(count);
}

// (g^m - 1)^-1 for the coset generator g = 7 and m = 2^log_m.
ff::Fr ZOnCosetInverse(unsigned log_m) {
  ff::Fr g_m = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator);
  for (unsigned i = 0; i < log_m; ++i) g_m = g_m.Square();
  return (g_m - ff::Fr::One()).Inverse();
}

}  // namespace

// The device-side state, created with the backend's device current (streams
// and the NTT tables belong to the device that was current at creation).
struct GpuState {
  explicit GpuState(int device) : ntt(device) {}
  NttEngine ntt;
  Stream streams[3];
  Event transformed[3];
  Event copy_start[3], copy_end[3];  // a/b/c uploads (CudaBackendStats)
  G1Msm msm;
  G2Msm msm_g2;
  DeviceBuffer<ff::Fr> abc[3], z;
  std::map<const ProvingKey*, std::unique_ptr<ResidentKey>> keys;
};

struct CudaBackend::Impl {
  explicit Impl(const CudaBackendOptions& o) : options(o), device(CheckedDevice(o.device)) {
    ScopedDevice on(device);
    gpu = std::make_unique<GpuState>(device);
  }

  static int CheckedDevice(int device) {
    std::string why;
    const auto devices = ListDevices(&why);
    if (device < 0 || size_t(device) >= devices.size()) {
      throw std::runtime_error("CudaBackend: no CUDA device " + std::to_string(device) + " (" +
                               (devices.empty() ? why : std::to_string(devices.size()) + " present") + ")");
    }
    return device;
  }

  const ResidentKey& Resident(const ProvingKey& pk) {
    auto it = gpu->keys.find(&pk);
    if (it != gpu->keys.end() && it->second->fingerprint == FingerprintOf(pk)) return *it->second;
    if (it != gpu->keys.end()) gpu->keys.erase(it);  // a different key at a freed key's address
    return *gpu->keys.emplace(&pk, std::make_unique<ResidentKey>(pk, options.g2_on_gpu)).first->second;
  }

  // H scalars on the device in abc[0] (m - 1 of them for bellperson keys, m
  // for snarkjs keys). Consumes input.abc.
  // Host memory the device is done with, freed after the device lock is let
  // go: freeing 1.6 GB (munmap, or cudaFreeHost, which also synchronizes the
  // device) takes tens of ms that the other worker's ProveStart need not wait.
  struct Retired {
    std::vector<r1cs::AbcVectors> abc;
    std::vector<std::shared_ptr<void>> owners;
    std::vector<r1cs::Assignment> assignments;
  };
  Retired retired;  // guarded by mu; emptied by ProveStart after unlocking

  void Retire(ProverInput& input) {
    retired.abc.push_back(std::move(input.abc));
    retired.owners.push_back(std::move(input.abc_owner));
    input.ReleaseAbc();
  }

  size_t ComputeH(const ProvingKey& pk, ProverInput& input) {
    const size_t m = input.Abc(0).size();
    if (pk.h_form != groth16::HQueryForm::kBellperson) {
      input.OwnAbc();  // the CPU's H path transforms vectors in place
      std::vector<ff::Fr> h =
          groth16::ComputeHScalars(pk.h_form, input.abc.a, input.abc.b, input.abc.c, options.cpu_threads);
      Retire(input);
      Reserve(gpu->abc[0], h.size());
      gpu->abc[0].CopyFromHost(h, gpu->streams[0]);
      gpu->streams[0].Synchronize();
      return h.size();
    }
    const unsigned log_m = unsigned(std::countr_zero(m));
    // One stream per vector: b's and c's uploads overlap a's transforms (fully
    // with pinned host memory, ProverInput::abc_external from the daemon's
    // pool; with pageable memory the host thread stages each copy, but the
    // GPU keeps transforming meanwhile).
    const bool pinned = IsPageLocked(input.Abc(0).data());
    for (int k = 0; k < 3; ++k) {
      Reserve(gpu->abc[k], m);
      gpu->copy_start[k].Record(gpu->streams[k]);
      gpu->abc[k].CopyFromHost(input.Abc(k), gpu->streams[k]);
      gpu->copy_end[k].Record(gpu->streams[k]);
      gpu->ntt.Run(NttKind::kInverse, gpu->abc[k].data(), m, gpu->streams[k]);
      gpu->ntt.Run(NttKind::kCosetForward, gpu->abc[k].data(), m, gpu->streams[k]);
      if (k > 0) {
        gpu->transformed[k].Record(gpu->streams[k]);
        CUZK_CUDA_CHECK(cudaStreamWaitEvent(gpu->streams[0], gpu->transformed[k].get(), 0));
      }
    }
    LaunchHPointwise(gpu->abc[0].data(), gpu->abc[1].data(), gpu->abc[2].data(), ZOnCosetInverse(log_m), m,
                     gpu->streams[0]);
    gpu->ntt.Run(NttKind::kCosetInverse, gpu->abc[0].data(), m, gpu->streams[0]);
    gpu->streams[0].Synchronize();  // the G1 MSM runs on its own stream
    for (int k = 0; k < 3; ++k) stats.abc_ms += gpu->copy_end[k].ElapsedMsSince(gpu->copy_start[k]);
    stats.abc_bytes += 3 * m * sizeof(ff::Fr);
    if (pinned) stats.abc_pinned_bytes += 3 * m * sizeof(ff::Fr);
    return m - 1;  // a/b/c are retired by StartOne, after z (which may share their buffer) is uploaded  // bellperson drops the last coefficient (0 for a satisfied circuit)
  }

  // z once to the device: the A, B_g1, L and B_g2 MSMs all read it (32 GiB
  // partition: 2.6 GB, ~47 ms at pinned line rate, paid once instead of 3x).
  // From ProverInput::z_copy when the daemon put one in page-locked memory.
  const ff::Fr* UploadWitness(const ProverInput& input) {
    const std::span<const ff::Fr> z =
        input.z_copy.size() == input.assignment.values.size() ? input.z_copy : input.assignment.values;
    Reserve(gpu->z, z.size());
    gpu->copy_start[1].Record(gpu->streams[1]);
    gpu->z.CopyFromHost(z, gpu->streams[1]);
    gpu->copy_end[1].Record(gpu->streams[1]);
    return gpu->z.data();
  }

  // cudaHostAlloc'd (or registered) memory: copies from it run at line rate.
  static bool IsPageLocked(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeHost;
  }

  PendingProof StartOne(const ProvingKey& pk, ProverInput& input) {
    const ResidentKey& bases = Resident(pk);
    const size_t h_count = ComputeH(pk, input);
    const ff::Fr* z = UploadWitness(input);
    gpu->streams[1].Synchronize();
    if (IsPageLocked(input.z_copy.data())) stats.z_pinned_bytes += input.z_copy.size_bytes();
    Retire(input);  // a/b/c and the z copy: the device has its own now
    stats.z_ms += gpu->copy_end[1].ElapsedMsSince(gpu->copy_start[1]);
    stats.z_bytes += input.assignment.values.size() * sizeof(ff::Fr);
    ++stats.proofs;
    const MsmGpuOptions on_device{.scalars_at = ScalarsAt::kDevice};
    G1Msm& msm = gpu->msm;
    PendingProof p;
    p.h_sum = msm.Run(bases.h, gpu->abc[0].data(), h_count, on_device);
    p.a_sum = msm.RunDensity(bases.a, z, pk.a_density, on_device);
    p.b1_sum = msm.RunDensity(bases.b_g1, z, pk.b_density, on_device);
    const size_t num_inputs = input.assignment.num_inputs;
    p.l_sum = msm.Run(bases.l, z + num_inputs, input.assignment.values.size() - num_inputs, on_device);
    if (bases.b_g2) {
      p.b2_sum = gpu->msm_g2.RunDensity(*bases.b_g2, z, pk.b_density, on_device);
      retired.assignments.push_back(std::move(input.assignment));  // ProveFinish only assembles
    } else {
      p.assignment = std::move(input.assignment);
    }
    return p;
  }

  CudaBackendOptions options;
  int device;
  mutable std::mutex mu;  // guards gpu and stats
  std::unique_ptr<GpuState> gpu;
  CudaBackendStats stats;
};

CudaBackend::CudaBackend(const CudaBackendOptions& options) : impl_(std::make_unique<Impl>(options)) {}
CudaBackend::~CudaBackend() = default;

std::vector<PendingProof> CudaBackend::ProveStart(const ProvingKey& pk, std::span<ProverInput> inputs) {
  for (const auto& in : inputs) groth16::CheckProverInput(pk, in);
  Impl::Retired retired;  // destroyed last: after the lock is released
  std::vector<PendingProof> out;
  std::lock_guard lock(impl_->mu);
  // Still under the lock, on every way out (a throw included): what the
  // device is done with moves to `retired`, freed once the lock is let go.
  struct TakeRetired {
    Impl::Retired& from;
    Impl::Retired& to;
    ~TakeRetired() { std::swap(from, to); }
  } take{impl_->retired, retired};
  const auto t0 = std::chrono::steady_clock::now();
  ScopedDevice on(impl_->device);
  out.reserve(inputs.size());
  for (auto& in : inputs) out.push_back(impl_->StartOne(pk, in));
  impl_->stats.prove_start_ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

groth16::Proof CudaBackend::ProveFinish(const ProvingKey& pk, PendingProof&& pending, const ff::Fr& r,
                                        const ff::Fr& s) {
  ec::G2Jacobian b2;
  if (pending.b2_sum) {
    b2 = *pending.b2_sum;
  } else {
    const msm::MsmOptions mo{.threads = impl_->options.cpu_threads};
    b2 = msm::MsmG2Density(pk.b_g2, pending.assignment.values, pk.b_density, mo);
  }
  groth16::Proof proof = groth16::AssembleProof(pk.vk, pending, b2, r, s);
  pending.assignment = {};
  return proof;
}

CudaBackendStats CudaBackend::Stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

void CudaBackend::ForgetKey(const ProvingKey& pk) {
  std::lock_guard lock(impl_->mu);
  ScopedDevice on(impl_->device);
  impl_->gpu->keys.erase(&pk);
}

}  // namespace cuzk::cuda
