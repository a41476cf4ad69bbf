#pragma once
// CudaBackend: the groth16::Backend on one NVIDIA GPU, bit-identical with
// CpuBackend (same MSM sums as group elements, same AssembleProof, so the
// same r, s give the same proof bytes).
//
//   cuda::CudaBackend gpu({.device = 0});
//   groth16::Proof p = groth16::Prove(gpu, pk, circuit, std::move(z));
//
// ProveStart, per witness:
//   H (bellperson form): a, b, c to the device; six NTTs (h_kernels.hpp: a
//     and b to the coset g = 7, c to coefficients; the product's inverse coset
//     NTT minus c, times (g^m - 1)^-1); the first m - 1 coefficients stay on
//     the device as the H MSM's scalars. (snarkjs form:
//     H scalars on the CPU, engine/groth16/h_polynomial.hpp, then the GPU MSM.)
//   G1 MSMs on the GPU (cuda/msm/msm.hpp): H, A (a_density), B_g1
//     (b_density), L (aux), and the G2 MSM B_g2 (b_density), with the key's
//     bases resident in device memory: uploaded on the first proof with a key
//     and kept for later proofs with the same key (identified by address and
//     a fingerprint of its sections). Sections beyond the device memory
//     left for bases (CudaBackendOptions::resident_bases_bytes) are streamed
//     from host memory on every proof instead.
// Each PendingProof carries ProveStart's steps (PendingProof::steps, in
// order): lane_wait (for a lane), bases, then witness-only circuit,
// [compact_z], z_expand, abc_eval, or for host a/b/c nothing; h_ntt (a/b/c
// uploads when on the host, 6 NTTs of m, two pointwise steps), [z_upload],
// msm_wait (for another lane's H MSM), msm_h, witness_wait (for another
// lane's witness MSMs: they have their own scratch, so the next lane's H MSM
// runs beside them), msm_a, msm_b_g1, msm_l, [msm_b_g2].
// ProveFinish: AssembleProof (microseconds). With g2_on_gpu = false the B_g2
// MSM runs there on the CPU (engine/msm), as in the CPU backend: on an 8 MiB
// partition (2^24) that took ~3.0 s on 16 cores against ~0.55 s for all of
// ProveStart, so the finalizer, not the GPU, set the pipeline's pace
// (docs/perf/gpu.md, the daemon runs).
//
// Host memory: a/b/c are read from wherever the input holds them; the daemon
// writes them into page-locked pool buffers (ProverInput::abc_external), which
// copy at ~55 GB/s, pageable vectors at ~8 GB/s (2.5 GB/s measured while
// synthesis kept every host core busy). z is copied once per proof (A, B_g1,
// L and B_g2 all read it), from ProverInput::z_copy when the daemon put one
// in the same page-locked buffer, else from the assignment's vector. 0/1 witness
// values are summed apart from the rest (the MSM's bit-witness split,
// cuda/msm/msm_steps.hpp).
//
// Early proving (CudaBackendOptions::early_proving, issue 17's cold start):
// a key loaded from its image is proved from the moment H is resident; a
// ProveStart while its witness sections still stream stops after msm_h,
// queues its witness MSMs (step "deferred") and returns; they run on the
// stream's thread when the sections land, and ProveFinish waits for them.
//
// Concurrency (CudaBackendOptions::lanes): each ProveStart call takes a
// lane (its own a/b/c and z buffers, streams and evaluation scratch) for the
// whole call, and the one MSM scratch (G1 and G2) only for its MSMs. With
// two lanes, one partition's witness expansion, a/b/c evaluation and NTTs
// (memory-bound) run while the other's MSMs (integer-bound) run. Prepare
// and ForgetKey exclude every call.
//
// Witness-only inputs (issue 15; groth16::ProveOptions::witness_only, so
// ProverInput::circuit is set and a/b/c were never evaluated on the host):
//   - the circuit in compact form (r1cs::Compact: 32-bit CSR, 2-byte
//     coefficient codes) is uploaded on the first such proof with a key and
//     kept with the key's bases (ForgetKey drops both; a different circuit
//     with the same key replaces it). Prepare leaves room for it when it
//     sizes the bases; Stats().resident_circuit_bytes says what it takes;
//   - per proof the host compacts z (r1cs::CompactWitnessOf: 2-bit classes
//     zero/one/other plus the other values), the device expands it into z
//     and evaluates a/b/c straight into the NTT buffers (padding written
//     there, never copied), then checks every row: a row with a b != c
//     throws groth16::UnsatisfiedWitnessError naming the same row and values
//     as the CPU path (the lowest failing row);
//   - the rest (NTTs, MSMs, ProveFinish) is the ordinary path, so proofs are
//     byte-identical with CpuBackend's for the same r, s.
// Keys in the snarkjs H form evaluate witness-only inputs on the host
// (groth16::EvaluateWitnessOnly), as their H runs on the CPU anyway.
//
//   cuda::CudaBackend gpu;
//   groth16::Proof p = groth16::ProveWithRandomness(gpu, pk, circuit, std::move(z), r, s, {.witness_only = true});
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "engine/groth16/backend.hpp"
#include "engine/r1cs/compact_circuit.hpp"

namespace cuzk::groth16 {
class KeyImageStream;
}

namespace cuzk::cuda {

struct CudaBackendOptions {
  int device = 0;
  unsigned cpu_threads = 0;  // the CPU's share (snarkjs-form H, G2 MSM when not on the GPU); 0 = all
  bool g2_on_gpu = true;     // false: B_g2 on the CPU in ProveFinish (saves its device bases)
  // Device memory a key's bases may take (each key on its own: two keys
  // proved on one backend may take twice this). Sections that do not fit stay in
  // host memory and are streamed through pinned staging on every proof
  // (Msm::RunStreamed): slower, but a key larger than the device still
  // proves. Unset: the device's free memory when the key is first proved,
  // less the proof's working set (ProofWorkingSetBytes). 0 streams every
  // section (tests).
  std::optional<size_t> resident_bases_bytes = std::nullopt;
  size_t stream_slice = 0;  // bases per streamed slice (MsmGpuOptions::stream_slice); 0: the default
  // Partitions that may be in ProveStart at once (the daemon: its GPU
  // workers per device). Each has its own a/b/c, z and streams (a lane), so
  // one partition's evaluation and NTTs run while another's MSMs hold the
  // MSM scratch (one at a time). 32 GiB: ~20 GB of device memory a lane.
  unsigned lanes = 1;
  // The witness MSMs (A, B_g1, L, B_g2) on a scratch of their own, so the
  // next lane's H MSM runs beside them (session 17, not yet timed: the
  // witness MSMs' small steps and read-backs leave SMs idle). false: they
  // run on the H MSM's scratch under its lock, as before (the switch the
  // two are timed against: `cuzk-gpu-bench partition --lanes 2
  // --witness-beside-h 0,1`). Costs a G1 MSM scratch for n_z scalars
  // (ProofWorkingSetBytes counts it either way).
  bool witness_beside_h = true;
  // Prepare also builds the H bases' window shifts (cuda/msm/shifted_bases.hpp:
  // the H MSM adds every window into one set of buckets) when the device
  // has room for them beside everything a proof still needs: an 8 MiB key's
  // 2^24 H bases take 19.3 GB at c = 22; a 32 GiB key's would take >= 141.7 GB,
  // so they never get one. The daemon turns it on (gpus.shifted_h_bases: 8 MiB
  // 96.85 proofs a minute against 90.21, docs/perf/gpu.md 2026-12-05); off
  // here: the H MSM always runs on the plain bases.
  bool shifted_h = false;
  // Issue 17's cold start (docs/perf/cold-start-next.md): LoadKeyImage
  // returns once H (and the compact circuit beside it) is on the device; L,
  // A, B_g1 and B_g2 stream on behind it on a thread of the backend's. A
  // proof started meanwhile runs its evaluation, H transform and H MSM, then
  // leaves its witness MSMs queued with its witness (host memory: ~75 MB a
  // 32 GiB partition in compact form) and returns; they run when the
  // sections land, and ProveFinish waits for them (PendingProof::deferred).
  // So every partition of a first sector can do its H part while the
  // witness bases (21.6 GB at 32 GiB) are still read from the disk. A
  // witness section that fails to load (a damaged image) fails the queued
  // proofs and every later ProveStart with the key, until ForgetKey. The
  // daemon turns it on (gpus.early_proving: a 32 GiB cold start 25.5-26.3 s
  // against 38.6, docs/perf/gpu.md 2026-12-05); off here.
  bool early_proving = false;
  // Which form of H LoadKeyImage reads when the key image holds both
  // (groth16::KeyImageH; an image with one form is read in that form):
  // 104-byte records, or 48-byte compressed ones the GPU decompresses, a
  // square root a point (6.45 GB instead of 13.96 GB at 32 GiB). kAuto: the
  // compressed one unless the other is in the page cache (a warm start
  // reads memory, where the square roots would only add GPU time). The
  // daemon's gpus.compressed_h = "always" writes images with H compressed only.
  enum class CompressedH { kAuto, kNever, kAlways };
  CompressedH compressed_h = CompressedH::kNever;
  // Tests: called on the stream's thread before the witness sections
  // stream (early_proving), so a test can start proofs while they are
  // still to come. Empty in production.
  std::function<void()> before_witness_stream = nullptr;
};

// Device memory one proof needs besides the key's bases, for a key of
// domain size m with n_z witness values: a/b/c and z, the per-scalar scratch
// of the G1 and G2 MSMs, the largest MSM's digit entries, sort buffers and
// buckets (H: m random scalars), and the streaming slices (32 GiB: ~63 GB).
// An estimate for sizing residency (docs/perf/gpu.md has measured figures).
size_t ProofWorkingSetBytes(size_t m, size_t n_z, unsigned lanes = 1);

// Device bytes a shifted H table may take (CudaBackendOptions::shifted_h):
// what is free, less what the proofs may still allocate (the largest
// working set of the resident keys, less the lanes' buffers already made),
// the table build's temporary and a margin of 1/32 of the device (>= 2 GiB)
// for what the estimate leaves out; within `cap` (resident_bases_bytes, the
// key's bases already held counted against it) when there is one.
struct ShiftedRoomInputs {
  size_t free_bytes = 0, total_bytes = 0;
  size_t largest_working_set = 0;  // ProofWorkingSetBytes over the resident keys
  size_t lanes_made = 0;           // the lanes' a/b/c and z buffers, already allocated
  size_t build_bytes = 0;          // the build's XYZZ slices
  std::optional<size_t> cap;       // CudaBackendOptions::resident_bases_bytes
  size_t key_held = 0;             // the key's resident bytes (against cap)
};
size_t ShiftedTableRoom(const ShiftedRoomInputs& in);

// Totals since the backend was made (CUDA events around each copy, so a
// copy's time includes any contention with the kernels of the other streams).
struct CudaBackendStats {
  uint64_t proofs = 0;
  uint64_t abc_bytes = 0, abc_pinned_bytes = 0;  // a/b/c host -> device; the part from page-locked memory
  double abc_ms = 0;                             // sum over the three copies of each proof
  uint64_t z_bytes = 0, z_pinned_bytes = 0;      // the witness host -> device; the part from page-locked memory
  double z_ms = 0;
  double prove_start_ms = 0;         // wall clock inside ProveStart (lock wait excluded)
  uint64_t resident_base_bytes = 0;  // device memory held by keys' bases now
  uint64_t streamed_msms = 0;        // MSMs whose bases were streamed from host memory
  uint64_t streamed_base_bytes = 0;  // bases converted and copied for them
  // Witness-only proofs (their a/b/c are not in abc_bytes; their z is not in z_bytes).
  uint64_t witness_only_proofs = 0;
  uint64_t compact_witness_bytes = 0;   // classes + chunk ranks + other values, host -> device
  double compact_witness_ms = 0;        // host: r1cs::CompactWitnessOf
  double abc_eval_ms = 0;               // upload, expansion, a/b/c evaluation and check (host wall clock)
  uint64_t resident_circuit_bytes = 0;  // device memory held by compact circuits now
  double prepare_bases_ms = 0;          // Prepare: the bases' conversion and upload (wall clock)
  double prepare_circuit_ms = 0;        // Prepare: the circuit's compaction and upload
  double image_bases_ms = 0;            // LoadKeyImage: bases from a key image (wall clock, buffers included)
  double image_buffers_ms = 0;          // LoadKeyImage: making its page-locked and device buffers
  uint64_t image_bases_bytes = 0;       // LoadKeyImage: image bytes streamed
  double image_release_ms = 0;          // LoadKeyImage: freeing its buffers after the stream
  // LoadKeyImage: the compact circuit's upload beside the stream (its
  // thread's wall clock) and its bytes.
  double image_circuit_ms = 0;
  uint64_t image_circuit_bytes = 0;
  uint64_t image_circuits_taken = 0;  // of those, taken by Prepare (not uploaded again)
  // Prepare: the H bases' window shifts (CudaBackendOptions::shifted_h), the
  // device bytes of those held now (also in resident_base_bytes), the width
  // of the last one built, and the time spent building them.
  uint64_t shifted_h_bytes = 0;
  uint32_t shifted_h_window_bits = 0;  // 0 while no table is held
  double prepare_shift_ms = 0;
  uint64_t shifted_h_msms = 0;  // H MSMs that ran over a table
  // early_proving: keys whose witness sections are streaming now; the
  // proofs whose witness MSMs waited for them; the wall clock of those
  // streams (each from LoadKeyImage's return to its last section's end).
  uint32_t keys_landing = 0;
  uint64_t deferred_proofs = 0;
  uint64_t landings_cancelled = 0;  // streams a key's drop cancelled before they were joined
  double image_landing_ms = 0;
  uint64_t image_h_compressed = 0;  // LoadKeyImage calls that read H in its compressed form
};

class CudaBackend final : public groth16::Backend {
 public:
  // std::runtime_error when the device does not exist.
  explicit CudaBackend(const CudaBackendOptions& options = {});
  ~CudaBackend() override;
  std::string_view name() const override { return "cuda"; }
  std::vector<groth16::PendingProof> ProveStart(const groth16::ProvingKey& pk,
                                                std::span<groth16::ProverInput> inputs) override;
  groth16::Proof ProveFinish(const groth16::ProvingKey& pk, groth16::PendingProof&& pending, const ff::Fr& r,
                             const ff::Fr& s) override;

  // Uploads what the first proof with this key would: its bases, and with
  // `circuit` (witness-only proving, bellperson keys) the circuit's compact
  // form; sizes the a/b/c and z buffers. Call when a key is loaded, so the
  // first ProveStart costs what a warm one does (32 GiB: the first partition
  // took 14.8 s against ~1.5 s warm, uploading 34 GB of bases). Takes the
  // device lock for as long as it uploads. `compact`: circuit's compact form
  // when the caller already has it (LoadedParams::compact, read from its
  // image and checked against `circuit`); else Prepare builds it.
  void Prepare(const groth16::ProvingKey& pk, const r1cs::CompiledCircuit* circuit,
               const r1cs::CompactCircuit* compact = nullptr);

  // LoadKeyImage's end: every section on the device (error null), or the
  // witness sections failed (early_proving). `ms` and `bytes`: the witness
  // sections' stream when it ran behind the call, else the whole load.
  struct Landed {
    double ms = 0;
    uint64_t bytes = 0;
    uint64_t deferred = 0;  // proofs whose witness MSMs waited for the sections
    std::exception_ptr error;
    bool cancelled = false;  // error: the key was dropped meanwhile (ForgetKey, the backend's end)
  };
  using OnLanded = std::function<void(const Landed&)>;

  // Puts pk's bases on the device straight from its key image, without a
  // host copy (issue 17): `pk` is the image's shell
  // (groth16::KeyImageStream::Shell, at the address proofs will use), the
  // points go through `threads` reading threads' page-locked buffers
  // (cuda/groth16/key_image_upload.hpp). False, with nothing kept, when they
  // would not all fit beside the proofs' working set and `circuit_bytes` of
  // compact circuit (the caller loads the key into host memory instead), or
  // when B_g2 does not run on the GPU. util::CacheError for a damaged image.
  // Takes the device lock for as long as it loads.
  // `compact` (may be empty): the set's compact circuit, blocking until it is
  // read (null when it cannot be). Called on a thread of its own once the
  // key is known to fit, its circuit is uploaded beside the key's stream and
  // kept for the next Prepare of this key with that same compact form (which
  // then uploads nothing: 32 GiB, 3.6 GB, 0.5-0.9 s off a first proof); any
  // other Prepare, a failed load or ForgetKey drops it. An upload that fails
  // is left to Prepare.
  // With early_proving it returns once H is resident and the witness
  // sections stream on behind it (the image is kept until they are done);
  // `on_landed` (may be empty) is called once for a load that returned
  // true: on the stream's thread when they land or fail (it must not call
  // ForgetKey or LoadKeyImage: they wait for that thread), else before
  // LoadKeyImage returns. ForgetKey, another LoadKeyImage of the same key
  // and the backend's destructor cancel the stream (at its next 48 MiB
  // chunk; the proofs still queued fail) and wait for it.
  using CompactSource = std::function<std::shared_ptr<const r1cs::CompactCircuit>()>;
  bool LoadKeyImage(const groth16::ProvingKey& pk, std::shared_ptr<const groth16::KeyImageStream> image,
                    size_t circuit_bytes, unsigned threads, const CompactSource& compact = {},
                    const OnLanded& on_landed = {});

  // Makes LoadKeyImage's buffers for `threads` reading threads now, on a
  // thread of its own (16 threads: 1.5 GB page-locked and 1.5 GB of device
  // memory, ~0.3 s of host time on the H200 host), so the next LoadKeyImage
  // does not make them; one that starts meanwhile makes the rest beside the
  // warming thread before it streams. They are freed by a LoadKeyImage that
  // gets as far as streaming, or by the next Prepare (a set loaded the usual
  // way). Once per backend (at daemon start); later calls do nothing.
  void PrepareKeyImageBuffers(unsigned threads);
  // Whether those spare buffers are still held (the caller charges them to
  // its memory budget while they are: ProofRunner).
  bool HoldsKeyImageSpare() const;

  // True when every section of pk's bases (B_g2 included) and, with
  // `circuit`, its compact form are resident on this device, so proofs read
  // neither from the host (groth16::Backend::HoldsOnDevice).
  bool HoldsOnDevice(const groth16::ProvingKey& pk, const r1cs::CompiledCircuit* circuit) const override;

  // Drops the device copy of a key's bases (call before destroying a key
  // that might be proved with again at the same address; frees device memory).
  void ForgetKey(const groth16::ProvingKey& pk);
  CudaBackendStats Stats() const;
  // Stats() without waiting: the backend's lock is held for seconds while
  // Prepare or a first proof uploads a key (a status page must not wait for
  // that); then the figures of the last call that got it (zero before any).
  CudaBackendStats StatsNow() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::cuda
