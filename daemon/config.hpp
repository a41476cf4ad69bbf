#pragma once
// The daemon's configuration: cuzk's TOML sections and keys (so an existing
// cuzk config file loads), parsed strictly. An unknown section or key, a
// value of the wrong type, a bad size or a bad duration is a ConfigError
// whose message names the key and the value:
//
//   daemon::Config c = daemon::LoadConfigFile("/etc/cuzk.toml");   // throws ConfigError
//   daemon::Config d = daemon::ParseConfig(text, "<inline>");
//
// Grammar (documented in daemon/cuzk.example.toml):
//   size      "<digits><unit>" with unit B, KiB, MiB, GiB or TiB (binary, case
//             sensitive, no space: "512MiB", "12GiB"), or a TOML integer = bytes.
//             "12 GiB", "12GB", "1.5GiB", "-1" are errors.
//   duration  "<digits><unit>" with unit ms, s, m or h ("1500ms", "30s", "5m", "1h").
//             Keys whose name ends in _ms take a TOML integer of milliseconds.
// Every key has a default (Config's member initialisers), so an empty file or
// no file at all gives the defaults.
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::prover {
struct ProverOptions;
}

namespace cuzk::daemon {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Config {
  struct Daemon {
    std::string listen = "unix:///run/curio/cuzk.sock";  // unix://PATH or HOST:PORT
    std::string status_listen;                           // HTTP /status + /metrics; "" = off
    std::chrono::milliseconds shutdown_grace{30'000};    // SIGTERM: running jobs get this long
    std::chrono::milliseconds job_retention{600'000};    // finished jobs kept for late AwaitProof
    uint64_t max_message_bytes = 512ull << 20;           // gRPC send/receive limit (>= 256 MiB)
    // gRPC's memory quota for the whole server (grpc::ResourceQuota::Resize,
    // a soft bound): the buffers of the messages being received and sent, all
    // connections together. >= max_message_bytes (one largest message must fit).
    uint64_t rpc_memory_bytes = 2ull << 30;
    // Threads of the service's RpcPool: the work of every call (submit,
    // status, cancel, preload); a waiting AwaitProof or Prove holds none.
    uint32_t rpc_threads = 16;
    // Unix socket of `listen`: its mode (0660: the owner and the group that
    // Curio runs in; bits for others are refused) and group ("" = the
    // daemon's primary group).
    uint32_t socket_mode = 0660;
    std::string socket_group;
    // The job journal (<state_dir>/state.db): accepted jobs survive a crash
    // and restart; "" = off (nothing outlives the process).
    std::string state_dir;
  } daemon;
  struct Tls {                   // TLS on a TCP `listen` (a unix socket stays plaintext); all "" = off
    std::string cert_file;       // PEM certificate chain of this server
    std::string key_file;        // PEM private key of cert_file
    std::string client_ca_file;  // PEM CA bundle: set = mutual TLS (client certificates required and verified)
  } tls;
  struct Auth {
    std::string token_file;  // file holding the bearer token every RPC must send; "" = no token
  } auth;
  // What one request may cost, checked on its wire bytes before it is
  // parsed (daemon/request_scan.hpp; docs/reliability.md, Request limits).
  struct Requests {
    uint32_t max_vanilla_proofs = 16;               // elements of vanilla_proofs (SnapDeals: 1..16 partitions)
    uint64_t max_vanilla_proof_bytes = 1ull << 20;  // bytes of one element (64 GiB partition proof: 575,528)
  } requests;
  struct Memory {
    std::optional<uint64_t> total_budget;  // nullopt = "auto" (MemTotal - safety_margin)
    uint64_t safety_margin = 5ull << 30;
    std::chrono::milliseconds eviction_min_idle{300'000};
    uint64_t pinned_limit = 16ull << 30;  // pinned host buffer ceiling (reported)
  } memory;
  struct Gpus {
    std::vector<int64_t> devices;  // [] = all
    uint32_t gpu_workers_per_device = 2;
    uint32_t gpu_threads = 0;
    bool shifted_h_bases = true;   // H bases' window shifts on the GPU when it has room (8 MiB: +7.4% proofs/min)
    bool early_proving = true;     // prove from H resident while a key image's witness bases stream
    bool witness_beside_h = true;  // witness MSMs on their own scratch, beside the next lane's H MSM
    // "always" | "auto" | "never": the form of H key images hold and GPUs read
    // (compressed: 48 bytes a point, decompressed on the GPU; auto: both).
    std::string compressed_h = "always";
  } gpus;
  struct Scheduler {
    uint32_t max_batch_size = 1;
    uint64_t max_batch_wait_ms = 10'000;
  } scheduler;
  struct Synthesis {
    uint32_t threads = 0;  // threads of one engine call (witness, a/b/c, MSM); 0 = all hardware threads
  } synthesis;
  struct Pipeline {                      // (`enabled` is accepted as true only: the pipeline is the one proof path)
    uint32_t synthesis_concurrency = 1;  // partitions synthesized at the same time (synthesis threads)
    uint32_t max_parallel_synthesis = 18;
    uint32_t max_gpu_queue_depth = 0;
    // GPU workers: synthesis computes only the witness and the GPU evaluates
    // a/b/c from the circuit kept on the device; false: a/b/c on the host.
    bool witness_only = true;
  } pipeline;
  // Another cuzk.v1.ProvingEngine (Curio's own cuzk daemon) for the proof
  // kinds this daemon does not prove (daemon/fallback_engine.hpp).
  struct Fallback {
    std::string address;  // "unix:///PATH" or "HOST:PORT"; "" = none (those kinds: UNIMPLEMENTED)
    // Kinds forwarded (ProofKind names); with SNAP_DEALS_UPDATE listed,
    // SnapDeals goes to the fallback instead of being proved here.
    std::vector<std::string> kinds = {"POREP_SEAL_COMMIT", "WINDOW_POST_PARTITION", "WINNING_POST"};
  } fallback;
  struct Srs {
    std::string param_cache = "/data/zk/params";
    std::vector<std::string> preload;  // circuit ids loaded at start ("snap-2k", "snap-32g")
    // Circuit and key images: "auto" = <param_cache>/cuzk-cache, "" = off.
    std::string cache_dir = "auto";
    // With witness-only GPUs and current images: a set loads straight into
    // the GPUs' memory, no host copy (SrsRegistry::SetKeyToDevices).
    bool key_to_gpu = true;
  } srs;
  struct Logging {
    std::string level = "info";   // trace, debug, info, warn, error, critical, off
    std::string format = "text";  // text | json (one JSON object per line)
  } logging;
  struct Testing {  // tests and drills only (RunnerOptions::synthesis_delay)
    std::chrono::milliseconds synthesis_delay{0};
    std::chrono::milliseconds gpu_delay{0};
  } testing;
};

// "<digits><unit>" as documented above; throws ConfigError naming `key`.
uint64_t ParseSize(std::string_view text, std::string_view key);
std::chrono::milliseconds ParseDuration(std::string_view text, std::string_view key);

// source: a file name for messages.
Config ParseConfig(std::string_view toml_text, std::string_view source);
Config LoadConfigFile(const std::string& path);

// Which key sets which prover option (prover/prover.hpp, prover/proof_runner.hpp).
prover::ProverOptions ProverOptionsFor(const Config& config);

}  // namespace cuzk::daemon
