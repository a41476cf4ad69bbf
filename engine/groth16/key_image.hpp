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
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "engine/groth16/types.hpp"
#include "engine/util/cache_file.hpp"

namespace cuzk::groth16 {

// The cache kind of key images (util::CacheWriter): bumped with their layout.
// /3: the compressed H section (KeySection::kHCompressed) added.
inline constexpr std::string_view kKeyImageKind = "groth16-key/3";

// The identity of a .params file: XXH3 over its size, modification time
// (ns), device and inode numbers, and the digests of its first and last MiB
// (reading the whole 34.5 GB file to check it would cost what the image
// saves). std::system_error if the file cannot be read.
uint64_t ParamsFileSource(const std::string& params_path);

// Which forms of H an image holds (KeySection::kH, kHCompressed): what its
// readers will use. kPlain for host reads and GPUs that read H as it is;
// kCompressed for GPUs that decompress it (a 32 GiB key image of 29.7 GB
// instead of 43.6: the disk of a 32 GiB set, and the bytes a cold start
// reads); kBoth lets the GPU choose per load (cuda's compressed_h = auto).
// A form left out is a section of no bytes.
enum class KeyImageH { kPlain, kCompressed, kBoth };

// std::invalid_argument for a key that is not in the bellperson form or
// holds a point at infinity (never from ReadParams); std::system_error for
// I/O; util::CacheError when cancelled. Written beside `path` and renamed
// over it at the end. Returns the bytes written.
uint64_t WriteKeyImage(const ProvingKey& pk, const std::string& path, uint64_t source,
                       const std::atomic<bool>* cancel = nullptr, KeyImageH h = KeyImageH::kBoth);

// What ReadKeyImage throws for an image that is current but holds H only
// compressed (KeyImageH::kCompressed): the host would have to take a square
// root per point (minutes at 32 GiB), so the caller decodes the .params and
// keeps the image for the GPUs it was written for.
class KeyImageWithoutPlainH : public util::CacheError {
 public:
  using util::CacheError::CacheError;
};

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

// util::CacheError when the image is missing, stale or damaged;
// KeyImageWithoutPlainH when it holds no plain H.
ProvingKey ReadKeyImage(const std::string& path, uint64_t source, const KeyImageReadOptions& options);
ProvingKey ReadKeyImage(const std::string& path, uint64_t source, unsigned threads = 0);

// A key image opened to send its points somewhere other than the key's host
// vectors: a GPU's memory (cuda::CudaBackend::LoadKeyImage), so a daemon
// whose GPUs hold the bases never holds a host copy of them (issue 17).
//
//   groth16::KeyImageStream image(path, source);       // CacheError when stale or damaged
//   groth16::ProvingKey shell = image.Shell();         // vk, sizes, first and last points
//   image.Stream(groth16::KeySection::kH, threads, buffer, records);   // every H point, digests checked
//
// kHCompressed ("h48"): H's points again in 48 bytes each, for a load from
// the disk (issue 17's cold start: 6.45 GB instead of 13.96 GB at 32 GiB),
// decompressed on the GPU (cuda/ec/g1_compressed.hpp): x's Montgomery limbs
// as the key holds them, little-endian, with bit 382 set when y is the
// lexicographically larger root (Zcash's sign rule) and bit 383 (infinity)
// never set (an image holds no point at infinity). Written with the others
// unless the writer left it out (KeyImageH); the full read (ReadKeyImage)
// ignores it, and Shell() reads H's first and last points from it (a square
// root each) only when the plain section was left out.
enum class KeySection { kH, kL, kA, kBG1, kBG2, kHCompressed };

class KeyImageStream {
 public:
  // Bytes of one record as the image holds it: the host's ec::AffinePoint
  // (G1 104, G2 200: x, y, a zero flag byte, zero padding).
  static size_t RecordBytes(KeySection s);
  // What Stream's buffer must hold: one chunk of the image (48 MiB).
  static size_t BufferBytes();
  // Where a record's flag byte lies (G1 96, G2 192: right after x and y);
  // std::invalid_argument for kHCompressed, whose flags are bits of x's top limb.
  static size_t FlagOffset(KeySection s);
  // The section's name in the image and in its errors ("h", "b_g2", ...).
  static const char* Name(KeySection s);
  // The util::CacheError for a record whose flag byte is set (the host's
  // check, and a caller's under FlagCheck::kByCaller: the same message).
  [[noreturn]] static void ThrowFlagSet(const std::string& path, KeySection s, uint64_t point);

  // util::CacheError when the image is missing, stale (`source`) or its
  // header, counts or verifying key are damaged.
  KeyImageStream(const std::string& path, uint64_t source);

  // The key without its points: the verifying key, every point vector sized
  // (util::OverwriteVector: the memory is reserved, never touched) with only
  // its first and last points read (what identifies a key's sections:
  // cuda_backend's KeyFingerprint); the points between are never read and
  // must never be (their contents are unspecified), as in a key whose host
  // copy was given back (prover/host_copy.hpp). Those two points are not
  // covered by a digest until Stream reads their sections.
  ProvingKey Shell() const;

  // buffer(worker): a buffer of at least BufferBytes() that `worker` (0 ..
  // threads - 1) may overwrite now. records(worker, first, bytes): `bytes`
  // holds whole records (RecordBytes each; every flag byte checked zero,
  // unless `flags` is kByCaller: then the caller must refuse a record whose
  // flag byte is not zero, as cuda::KeyImageUploader does on the GPU, which
  // spares the host a pass over the bytes) for points first, first + 1, ...,
  // lying in the buffer that `worker` got last; it must be done with them (or have copied them) before it returns
  // or before that worker's next buffer() call returns. A record that
  // straddles two chunks is assembled and handed over at the end, in a
  // buffer(0) of its own. util::CacheError (digests, flags) after some
  // records were handed over: the caller discards them.
  using Buffer = std::function<std::span<uint8_t>(unsigned worker)>;
  using Records = std::function<void(unsigned worker, uint64_t first, std::span<const uint8_t> records)>;
  enum class FlagCheck { kHere, kByCaller };
  void Stream(KeySection section, unsigned threads, const Buffer& buffer, const Records& records,
              FlagCheck flags = FlagCheck::kHere) const;

  uint64_t Count(KeySection section) const;
  // Whether the image holds the section's records (only kH or kHCompressed
  // can be left out, never both of a key with an H).
  bool Holds(KeySection section) const;
  const std::string& path() const;
  // The share of the section's file pages in the page cache now (mincore
  // over a mapping of its range, nothing read): ~1 once it was read
  // recently, ~0 after a drop. 0 when it cannot be told.
  double ResidentShare(KeySection section) const;

  ~KeyImageStream();
  KeyImageStream(const KeyImageStream&) = delete;
  KeyImageStream& operator=(const KeyImageStream&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::groth16
