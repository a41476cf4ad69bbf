#pragma once
// Key images: a bellperson proving key as decoded from its .params, written
// once in the prover's own memory form (ec::AffinePoint as it lies in the
// key's vectors: Montgomery limbs, little-endian, flag and padding; G1 104
// bytes, G2 200), so a restart copies it instead of decoding it again. Decoding a .params file checks every point and
// converts it into Montgomery form (0.63 GB/s on the 16-core H200 host for the 34.5 GB 32 GiB file: 59 s); reading an
// image is a copy checked by its digests.
//
// An image is only ever made from a key ReadParams returned, so it holds
// points that passed the .params checks (on the curve, not at infinity).
// Its source digest ties it to that file (ParamsFileSource): a .params file
// that changed size, modification time, inode, or its first or last MiB
// makes the image stale (CacheError), as does a damaged or truncated image
// (per-section digests). The densities are not in the image: the caller
// binds the circuit (BindCircuit), as after ReadParams.
//
//   uint64_t source = groth16::ParamsFileSource("x.params");
//   groth16::WriteKeyImage(pk, "x.key-image", source);
//   groth16::ProvingKey pk2 = groth16::ReadKeyImage("x.key-image", source);   // == pk
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/groth16/types.hpp"

namespace cuzk::groth16 {

// The cache kind of key images (util::CacheWriter): bumped with their layout.
inline constexpr std::string_view kKeyImageKind = "groth16-key/2";

// The identity of a .params file: XXH3 over its size, modification time
// (ns), device and inode numbers, and the digests of its first and last MiB
// (reading the whole 34.5 GB file to check it would cost what the image
// saves). std::system_error if the file cannot be read.
uint64_t ParamsFileSource(const std::string& params_path);

// std::invalid_argument for a key that is not in the bellperson form or
// holds a point at infinity (never from ReadParams); std::system_error for
// I/O; util::CacheError when cancelled. Written beside `path` and renamed
// over it at the end. Returns the bytes written.
uint64_t WriteKeyImage(const ProvingKey& pk, const std::string& path, uint64_t source,
                       const std::atomic<bool>* cancel = nullptr);

// Where a read's time went, section by section (the sections are read at
// the same time): sizing the vector and reading the
// bytes into it (digests and flag checks included).
struct KeyImageReadStats {
  struct Section {
    double size_ms = 0, read_ms = 0;
  };
  Section h, l, a, b_g1, b_g2;
};

struct KeyImageReadOptions {
  unsigned threads = 0;  // 0 = all hardware threads
  // Size each section without a pass over its memory, the reading threads
  // faulting its pages in (util::OverwriteVector); false: every point
  // value-initialised on one thread first, as a std::vector resize does
  // (the measured off switch).
  bool fault_in = true;
  KeyImageReadStats* stats = nullptr;  // filled when given
};

// util::CacheError when the image is missing, stale or damaged.
ProvingKey ReadKeyImage(const std::string& path, uint64_t source, const KeyImageReadOptions& options);
ProvingKey ReadKeyImage(const std::string& path, uint64_t source, unsigned threads = 0);

}  // namespace cuzk::groth16
