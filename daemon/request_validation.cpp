#include "daemon/request_validation.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <string_view>

#include "daemon/errors.hpp"
#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/sha256.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"
#include "prover/srs_registry.hpp"

namespace cuzk::daemon {
namespace {

using cuzk::v1::SubmitProofRequest;
using prover::JobKind;
using prover::Priority;
using prover::ProofJob;
using prover::SrsRegistry;

// The sector size of a SnapDeals request. registered_proof is Filecoin's
// RegisteredUpdateProof (go-state-types abi, V1 variants), as Curio sends it:
// ProveUpdateCuzk sets it beside sector_size, PSProve (proof share) sets it
// alone. Curio's daemon takes the size from registered_proof only (its
// registered_update_proof_from_u64) and ignores sector_size. Here:
//  - sector_size 0: registered_proof decides, as there (PSProve);
//  - sector_size set: it decides, and a registered_proof other than 0 must be
//    the RegisteredUpdateProof of that size (0 is 2 KiB and also proto3's
//    "not set": cuzk's own clients send sector_size alone; Curio's senders
//    derive both from one sector, so they always agree);
//  - a value that is no RegisteredUpdateProof, or a contradiction, is refused
//    here (INVALID_ARGUMENT) instead of failing the job later as Curio's does.
filecoin::SectorShape ShapeOf(const SubmitProofRequest& r) {
  static const std::array<uint64_t, 5> kUpdateProofSectorBytes = {2ull << 10, 8ull << 20, 512ull << 20, 32ull << 30,
                                                                  64ull << 30};
  static const std::array<const char*, 5> kUpdateProofNames = {
      "StackedDrg2KiBV1", "StackedDrg8MiBV1", "StackedDrg512MiBV1", "StackedDrg32GiBV1", "StackedDrg64GiBV1"};
  const uint64_t proof = r.registered_proof();
  if (proof >= kUpdateProofSectorBytes.size()) {
    throw InvalidRequestError("registered_proof " + std::to_string(proof) +
                              " is not a SnapDeals RegisteredUpdateProof (0 StackedDrg2KiBV1, 1 8MiB, 2 512MiB, "
                              "3 32GiB, 4 StackedDrg64GiBV1)");
  }
  uint64_t bytes = r.sector_size();
  if (bytes == 0) {
    bytes = kUpdateProofSectorBytes[proof];
  } else if (proof != 0 && kUpdateProofSectorBytes[proof] != bytes) {
    throw InvalidRequestError("registered_proof " + std::to_string(proof) + " (" + kUpdateProofNames[proof] + ", " +
                              std::to_string(kUpdateProofSectorBytes[proof]) + " bytes) does not match sector_size " +
                              std::to_string(bytes));
  }
  try {
    return filecoin::SectorShape::FromSectorSize(bytes);
  } catch (const std::invalid_argument& e) {
    throw InvalidRequestError("sector_size " + std::to_string(bytes) + ": " + e.what());
  }
}

// The two CID forms of a commitment Curio has sent (cid.Bytes(), CIDv1): the
// codec and multihash of a sealed (CommR) or unsealed (CommD) commitment.
struct CommitmentCid {
  uint64_t codec, multihash;
  const char* what;
};
constexpr CommitmentCid kSealedCid{0xf102, 0xb401,
                                   "fil-commitment-sealed (0xf102) with poseidon-bls12_381-a2-fc1 (0xb401)"};
constexpr CommitmentCid kUnsealedCid{0xf101, 0x1012,
                                     "fil-commitment-unsealed (0xf101) with sha2-256-trunc254-padded (0x1012)"};

// An unsigned LEB128 varint (multiformats: at most 9 bytes); nullopt when malformed.
std::optional<uint64_t> ReadVarint(std::string_view& in) {
  uint64_t v = 0;
  for (int i = 0; i < 9 && !in.empty(); ++i) {
    const uint8_t b = uint8_t(in.front());
    in.remove_prefix(1);
    v |= uint64_t(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) return v;
  }
  return std::nullopt;
}

std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

// The 32-byte digest of a commitment given raw (32 bytes) or as CID bytes.
std::string_view CommitmentDigest(const std::string& bytes, const char* name, const CommitmentCid& cid) {
  if (bytes.size() == 32) return bytes;
  const std::string expected = std::string(" (expected 32 raw bytes, or the CID bytes of ") + cid.what + ")";
  std::string_view in = bytes;
  const std::optional<uint64_t> version = ReadVarint(in);
  if (!version || *version != 1)
    throw InvalidRequestError(std::string(name) + ": " + std::to_string(bytes.size()) + " bytes that are not a CIDv1" +
                              expected);
  const std::optional<uint64_t> codec = ReadVarint(in);
  if (!codec || *codec != cid.codec)
    throw InvalidRequestError(std::string(name) + ": a CID with codec " + (codec ? Hex(*codec) : "(malformed)") +
                              expected);
  const std::optional<uint64_t> hash = ReadVarint(in);
  if (!hash || *hash != cid.multihash)
    throw InvalidRequestError(std::string(name) + ": a CID with multihash " + (hash ? Hex(*hash) : "(malformed)") +
                              expected);
  const std::optional<uint64_t> length = ReadVarint(in);
  if (!length || *length != 32 || in.size() != 32)
    throw InvalidRequestError(std::string(name) + ": a CID whose digest is " + std::to_string(in.size()) + " bytes" +
                              (length ? " (declared " + std::to_string(*length) + ")" : "") + expected);
  return in;
}

filecoin::Domain Commitment(const std::string& bytes, const char* name, const CommitmentCid& cid) {
  const std::string_view digest = CommitmentDigest(bytes, name, cid);
  filecoin::Domain d;
  std::copy(digest.begin(), digest.end(), d.begin());
  if (!filecoin::IsCanonical(d)) {
    throw InvalidRequestError(std::string(name) + ": not a canonical BLS12-381 scalar (value >= the field modulus)");
  }
  return d;
}

// The wire values are scheduler::Priority's (1 LOW .. 4 CRITICAL); 0 means the kind's default.
Priority ResolvePriority(const SubmitProofRequest& r) {
  const int p = int(r.priority());
  if (p < 0 || p > 4) throw InvalidRequestError("priority " + std::to_string(p) + " is not a Priority (0..4)");
  if (p != 0) return static_cast<Priority>(p);
  switch (r.proof_kind()) {
    case cuzk::v1::WINNING_POST: return Priority::kCritical;
    case cuzk::v1::WINDOW_POST_PARTITION: return Priority::kHigh;
    default: return Priority::kNormal;
  }
}

std::string Digest(const SubmitProofRequest& r) {
  SubmitProofRequest copy = r;
  copy.clear_request_id();
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  {
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    copy.SerializeToCodedStream(&out);
  }
  auto d = snapdeals::Sha256Hash(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return std::string(d.begin(), d.end());
}

ValidatedRequest ValidateGeneric(const SubmitProofRequest& r) {
  ValidatedRequest v;
  SrsRegistry::CheckGenericCircuitId(r.circuit_id());
  const std::string& w = r.witness();
  if (w.empty() || w.size() % 32 != 0) {
    throw InvalidRequestError("witness: " + std::to_string(w.size()) +
                              " bytes, expected 32 per variable (canonical little-endian Fr, ONE first)");
  }
  auto job = std::make_shared<ProofJob>();
  job->kind = JobKind::kGenericR1cs;
  job->priority = ResolvePriority(r);
  job->witness.values.resize(w.size() / 32);
  for (size_t i = 0; i < job->witness.values.size(); ++i) {
    filecoin::Domain d;
    std::copy(w.begin() + std::ptrdiff_t(32 * i), w.begin() + std::ptrdiff_t(32 * i + 32), d.begin());
    if (!filecoin::IsCanonical(d)) {
      throw InvalidRequestError("witness[" + std::to_string(i) + "]: not a canonical BLS12-381 scalar");
    }
    job->witness.values[i] = filecoin::DomainToFr(d, "witness");
  }
  if (!(job->witness.values[0] == ff::Fr::One())) throw InvalidRequestError("witness[0] must be 1 (the ONE variable)");
  v.circuit_id = r.circuit_id();
  v.digest = Digest(r);
  v.job = std::move(job);
  return v;
}

}  // namespace

std::string QuoteForMessage(std::string_view text) {
  constexpr size_t kShown = 64;
  std::string out = "\"";
  for (unsigned char ch : text.substr(0, kShown)) {
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
      out += char(ch);
    } else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", ch);
      out += b;
    }
  }
  out += '"';
  if (text.size() > kShown) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

void CheckId(std::string_view id, const char* field) {
  if (id.size() > kMaxIdBytes)
    throw InvalidRequestError(std::string(field) + " " + QuoteForMessage(id) + " is longer than " +
                              std::to_string(kMaxIdBytes) + " bytes");
  for (unsigned char ch : id) {
    if (ch < 0x20 || ch >= 0x7f)
      throw InvalidRequestError(std::string(field) + " " + QuoteForMessage(id) +
                                ": only printable ASCII characters (space to '~') are allowed");
  }
}

ValidatedRequest ValidateSubmit(const SubmitProofRequest& r) {
  CheckId(r.request_id(), "request_id");
  // Forwarded jobs' ids carry this prefix (fallback_engine.hpp): a local job
  // id never does, so an id alone says where its job lives.
  if (r.request_id().rfind(kFallbackIdPrefix, 0) == 0)
    throw InvalidRequestError("request_id " + QuoteForMessage(r.request_id()) + " starts with \"" + kFallbackIdPrefix +
                              "\", the prefix of jobs forwarded to a [fallback] engine");
  switch (r.proof_kind()) {
    case cuzk::v1::SNAP_DEALS_UPDATE: break;
    case cuzk::v1::POREP_SEAL_COMMIT:
    case cuzk::v1::WINDOW_POST_PARTITION:
    case cuzk::v1::WINNING_POST:
      throw UnimplementedError(std::string(cuzk::v1::ProofKind_Name(r.proof_kind())) +
                               " proofs are not proved by this daemon (it proves SNAP_DEALS_UPDATE and "
                               "GENERIC_R1CS): set [fallback] address (and kinds) in its config to forward them to "
                               "another cuzk.v1.ProvingEngine, such as Curio's cuzk daemon");
    case cuzk::v1::GENERIC_R1CS: return ValidateGeneric(r);
    case cuzk::v1::PROOF_KIND_UNSPECIFIED: throw InvalidRequestError("proof_kind is not set (SNAP_DEALS_UPDATE = 2)");
    default: throw InvalidRequestError("proof_kind " + std::to_string(int(r.proof_kind())) + " is unknown");
  }
  ValidatedRequest v;
  auto job = std::make_shared<ProofJob>();
  job->kind = JobKind::kSnapDeals;
  job->priority = ResolvePriority(r);
  job->shape = ShapeOf(r);
  const auto& shape = job->shape;
  job->commitments.comm_r_old = Commitment(r.comm_r_old(), "comm_r_old", kSealedCid);
  job->commitments.comm_r_new = Commitment(r.comm_r_new(), "comm_r_new", kSealedCid);
  job->commitments.comm_d_new = Commitment(r.comm_d_new(), "comm_d_new", kUnsealedCid);
  if (unsigned(r.vanilla_proofs_size()) != shape.partitions) {
    throw InvalidRequestError("vanilla_proofs: " + std::to_string(r.vanilla_proofs_size()) + " given, a " +
                              shape.Name() + " sector has " + std::to_string(shape.partitions) +
                              " partition(s): one bincode PartitionProof each");
  }
  const size_t expected = filecoin::PartitionProofSize(shape);
  for (unsigned k = 0; k < shape.partitions; ++k) {
    const std::string& bytes = r.vanilla_proofs(int(k));
    const std::string where = "vanilla_proofs[" + std::to_string(k) + "]";
    if (bytes.size() != expected) {
      throw InvalidRequestError(where + ": " + std::to_string(bytes.size()) + " bytes, a " + shape.Name() +
                                " partition proof is " + std::to_string(expected));
    }
    try {
      job->partitions.push_back(
          filecoin::ReadPartitionProof(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), shape));
      // The structural checks upstream asserts on (path shapes, one partition path per proof).
      snapdeals::MakeCircuitWitness(shape, k, job->commitments, job->partitions.back());
    } catch (const filecoin::BincodeError& e) {
      throw InvalidRequestError(where + ": " + e.what() + " (at byte " + std::to_string(e.offset()) + ")");
    } catch (const std::invalid_argument& e) {
      throw InvalidRequestError(where + ": " + e.what());
    }
  }
  v.circuit_id = SrsRegistry::SnapCircuitId(shape);
  v.digest = Digest(r);
  v.job = std::move(job);
  return v;
}

}  // namespace cuzk::daemon
