#pragma once
// SrsImageCache: the folder of circuit and key images (engine/r1cs/
// circuit_image.hpp, engine/groth16/key_image.hpp) that lets a parameter set
// load at copy speed after its first load. SrsRegistry asks it before
// compiling a circuit or decoding a .params file; after a load that missed,
// it writes the missing images on one background thread, so the first job
// never waits for them.
//
// Files: <dir>/<circuit id>.circuit-image, <dir>/<circuit id>.compact-image
// (the circuit's compact form for witness-only GPU proving, only where a GPU
// uses it: engine/r1cs/compact_image.hpp) and <dir>/<.params file name>.key-image.
// Missing images are a quiet miss; stale or damaged ones are logged (the
// reason: other inputs, a digest mismatch, cut short) and rewritten. A
// folder that cannot be created or written turns the cache off with one
// warning: proving never depends on it.
//
// Costs: an image is about the size of what it holds in memory (32 GiB: the
// key ~37 GB, the circuit ~18 GB of disk); writing it reads the loaded set
// (which the writer holds: an evicted set's memory goes when its write ends)
// at disk speed; Shutdown (and the destructor) cancel a write between
// chunks and remove its temporary file.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "engine/groth16/key_image.hpp"
#include "engine/groth16/types.hpp"
#include "engine/r1cs/circuit_image.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::prover {

struct LoadedParams;

class SrsImageCache {
 public:
  // dir empty: off (every Read misses, nothing is written).
  explicit SrsImageCache(std::string dir);
  ~SrsImageCache();
  SrsImageCache(const SrsImageCache&) = delete;
  SrsImageCache& operator=(const SrsImageCache&) = delete;

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  // The identity of a .params file (groth16::ParamsFileSource), 0 if it
  // cannot be read; what a key image must have been made from.
  static uint64_t ParamsSource(const std::string& params_path);

  // nullopt on a miss (logged when the image exists but is stale or damaged).
  std::optional<r1cs::CompiledCircuit> ReadCircuit(const std::string& circuit_id, unsigned threads);
  // The compact form of `circuit` (just read from its image), checked
  // against it nonzero by nonzero (r1cs::CheckCompactDescribes); null on a
  // miss or a mismatch (logged).
  std::shared_ptr<const r1cs::CompactCircuit> ReadCompact(const std::string& circuit_id,
                                                          const r1cs::CompiledCircuit& circuit, unsigned threads);
  // For a load straight to the GPUs (SrsRegistry::SetKeyToDevices): the
  // circuit without its matrices (r1cs::ReadCircuitImageShell) and its
  // compact form checked by shape against it (r1cs::CheckCompactShape);
  // nullopt on a miss or a mismatch (logged).
  struct CircuitForDevices {
    r1cs::CompiledCircuit shell;
    std::shared_ptr<const r1cs::CompactCircuit> compact;
  };
  std::optional<CircuitForDevices> ReadCircuitForDevices(const std::string& circuit_id, unsigned threads);
  // The circuit's counts from its image (r1cs::ReadCircuitImageCounts);
  // nullopt on a miss or a stale or damaged image (not logged: the load
  // that follows reports it).
  std::optional<r1cs::CircuitImageCounts> ReadCircuitCounts(const std::string& circuit_id);
  // Whether all three images a load straight to the GPUs reads are there
  // (circuit, compact circuit, key; whether they are current is found when
  // they are read).
  bool HasImagesForDevices(const std::string& circuit_id, const std::string& params_path) const;
  // The key image opened for streaming (groth16::KeyImageStream); null on a
  // miss or a stale or damaged header (logged).
  std::unique_ptr<groth16::KeyImageStream> OpenKey(const std::string& params_path, uint64_t params_source);
  // The key read into host memory; nullopt on a miss. *compressed_only
  // (when given) is set when the image is current but holds H only
  // compressed (groth16::KeyImageWithoutPlainH): the caller decodes the
  // .params and decides whether the image stays for its GPUs
  // (SrsRegistry: while they are tried again) or is written again.
  std::optional<groth16::ProvingKey> ReadKey(const std::string& params_path, uint64_t params_source, unsigned threads,
                                             bool* compressed_only = nullptr);

  // Removes a key image its reader found damaged (a stream to the GPUs:
  // a digest, a record that is not a point), counted as a rebuild: the load
  // that follows writes it again.
  void RemoveDamagedKey(const std::string& params_path, const std::string& why);

  // Which forms of H the key images it writes hold (groth16::KeyImageH):
  // kPlain (the default: host reads) unless GPUs stream the key from its
  // image (Prover: from gpus.compressed_h). Images already written are read
  // whatever they hold.
  void SetKeyImageH(groth16::KeyImageH h) { key_h_ = h; }
  groth16::KeyImageH key_image_h() const { return key_h_; }

  // Which images a load found current; the others are written.
  struct Missing {
    bool circuit = false, key = false;
    bool compact = false;  // only where a GPU proves witness-only (SrsRegistry::SetCompactCircuits)
    // The set loads into host memory for good: the key image holds the plain
    // H whatever SetKeyImageH says (kCompressed is written as kBoth).
    bool key_with_plain_h = false;
  };
  // Writes the images a load missed, in the background (one write at a time:
  // a later request waits for the earlier ones). The compact form is built
  // there from the loaded circuit (r1cs::Compact on kCompactThreads threads,
  // so proving keeps the rest). Returns whether a write was queued; then
  // on_done (if set) runs on the writer's thread once it is done with
  // `params`, written or not (LoadedParams::host_readers).
  bool WriteMissing(std::shared_ptr<const LoadedParams> params, const std::string& circuit_id,
                    const std::string& params_path, uint64_t params_source, Missing missing,
                    std::function<void()> on_done = {});
  static constexpr unsigned kCompactThreads = 4;

  // Cancels the writes in progress and waits for them.
  void Shutdown();
  // Waits for the writes requested so far to finish (tests, tools).
  void WaitForWrites();

  // What the cache has done since it was made.
  struct Stats {
    uint64_t circuit_hits = 0, key_hits = 0;  // loads that copied an image
    uint64_t compact_hits = 0, compact_writes = 0;
    uint64_t rebuilds = 0;                        // images found stale or damaged
    uint64_t circuit_writes = 0, key_writes = 0;  // images written
    uint64_t bytes_written = 0;
  };
  Stats stats() const;

  std::string CircuitPath(const std::string& circuit_id) const;
  std::string CompactPath(const std::string& circuit_id) const;
  std::string KeyPath(const std::string& params_path) const;

 private:
  bool EnsureDir();
  void SweepOrphans();
  void Disable(const std::string& why);

  std::string dir_;
  std::atomic<bool> cancel_{false};
  std::atomic<groth16::KeyImageH> key_h_{groth16::KeyImageH::kPlain};
  absl::Mutex mu_;
  std::vector<std::thread> writers_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<absl::Mutex> write_order_ = std::make_shared<absl::Mutex>();  // one write at a time
  std::atomic<bool> disabled_{false};
  std::atomic<bool> swept_{false};
  mutable absl::Mutex stats_mu_;
  Stats stats_ ABSL_GUARDED_BY(stats_mu_);
};

}  // namespace cuzk::prover
