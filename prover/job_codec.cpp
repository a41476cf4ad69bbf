#include "prover/job_codec.hpp"

#include <cstring>

#include "engine/filecoin/vanilla_proof_bincode.hpp"

namespace cuzk::prover {
namespace {

constexpr char kMagic[4] = {'C', 'Z', 'K', 'J'};

class Writer {
 public:
  void Bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void Str(const std::string& s) {
    U32(uint32_t(s.size()));
    Bytes(s.data(), s.size());
  }
  std::vector<uint8_t> Take() { return std::move(out_); }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t> out_;
};

// Every read checks what is left first: a damaged row gives a JobCodecError
// naming the field, never a read past the end or a huge allocation.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  std::span<const uint8_t> Bytes(uint64_t n, const char* field) {
    if (n > in_.size() - at_)
      throw JobCodecError(std::string("job record: ") + field + " needs " + std::to_string(n) + " bytes at offset " +
                          std::to_string(at_) + ", " + std::to_string(in_.size() - at_) + " left");
    auto s = in_.subspan(at_, size_t(n));
    at_ += size_t(n);
    return s;
  }
  uint32_t U32(const char* field) { return uint32_t(Le(4, field)); }
  uint64_t U64(const char* field) { return Le(8, field); }
  std::string Str(const char* field) {
    auto b = Bytes(U32(field), field);
    return std::string(b.begin(), b.end());
  }
  filecoin::Domain Domain(const char* field) {
    filecoin::Domain d;
    auto b = Bytes(32, field);
    std::memcpy(d.data(), b.data(), 32);
    if (!filecoin::IsCanonical(d)) throw JobCodecError(std::string("job record: ") + field + " is not canonical");
    return d;
  }
  void ExpectEnd() const {
    if (at_ != in_.size()) throw JobCodecError("job record: " + std::to_string(in_.size() - at_) + " trailing byte(s)");
  }

 private:
  uint64_t Le(int n, const char* field) {
    auto b = Bytes(uint64_t(n), field);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(b[size_t(i)]) << (8 * i);
    return v;
  }
  std::span<const uint8_t> in_;
  size_t at_ = 0;
};

void EncodeSnap(const ProofJob& job, Writer& w) {
  w.U64(job.shape.sector_bytes);
  w.U32(job.shape.h);
  w.Bytes(job.commitments.comm_r_old.data(), 32);
  w.Bytes(job.commitments.comm_d_new.data(), 32);
  w.Bytes(job.commitments.comm_r_new.data(), 32);
  w.U32(uint32_t(job.partitions.size()));
  for (const filecoin::PartitionProof& p : job.partitions) {
    const std::vector<uint8_t> bytes = filecoin::WritePartitionProof(p);
    w.U64(bytes.size());
    w.Bytes(bytes.data(), bytes.size());
  }
}

void DecodeSnap(Reader& r, ProofJob& job) {
  const uint64_t sector_bytes = r.U64("sector_bytes");
  const uint32_t h = r.U32("h");
  try {
    job.shape = filecoin::SectorShape::FromSectorSize(sector_bytes);
    if (h != job.shape.h) job.shape = job.shape.WithH(h);
  } catch (const std::invalid_argument& e) {
    throw JobCodecError(std::string("job record: sector shape: ") + e.what());
  }
  job.commitments.comm_r_old = r.Domain("comm_r_old");
  job.commitments.comm_d_new = r.Domain("comm_d_new");
  job.commitments.comm_r_new = r.Domain("comm_r_new");
  const uint32_t n = r.U32("partitions");
  if (n != job.shape.partitions)
    throw JobCodecError("job record: " + std::to_string(n) + " partition(s), a " + job.shape.Name() + " sector has " +
                        std::to_string(job.shape.partitions));
  const size_t expected = filecoin::PartitionProofSize(job.shape);
  for (uint32_t k = 0; k < n; ++k) {
    const uint64_t len = r.U64("partition length");
    if (len != expected)
      throw JobCodecError("job record: partition " + std::to_string(k) + " is " + std::to_string(len) +
                          " bytes, expected " + std::to_string(expected));
    try {
      job.partitions.push_back(filecoin::ReadPartitionProof(r.Bytes(len, "partition"), job.shape));
    } catch (const filecoin::BincodeError& e) {
      throw JobCodecError("job record: partition " + std::to_string(k) + ": " + e.what());
    }
  }
}

void EncodeGeneric(const ProofJob& job, Writer& w) {
  w.U64(job.witness.values.size());
  for (const ff::Fr& v : job.witness.values) {
    const filecoin::Domain d = filecoin::DomainFromFr(v);
    w.Bytes(d.data(), d.size());
  }
}

void DecodeGeneric(Reader& r, ProofJob& job) {
  const uint64_t n = r.U64("witness length");
  std::vector<ff::Fr> values;  // not reserved: an absurd n ends at the first read past the end
  for (uint64_t i = 0; i < n; ++i) values.push_back(filecoin::DomainToFr(r.Domain("witness value"), "witness value"));
  job.witness.values = std::move(values);
}

}  // namespace

std::vector<uint8_t> EncodeJobInputs(const ProofJob& job, const std::string& circuit_id) {
  Writer w;
  w.Bytes(kMagic, sizeof kMagic);
  w.U32(kJobCodecVersion);
  w.U32(uint32_t(job.kind));
  w.U32(uint32_t(job.priority));
  w.Str(circuit_id);
  if (job.kind == JobKind::kGenericR1cs) {
    EncodeGeneric(job, w);
  } else {
    EncodeSnap(job, w);
  }
  return w.Take();
}

DecodedJobInputs DecodeJobInputs(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  if (std::memcmp(r.Bytes(4, "magic").data(), kMagic, 4) != 0) throw JobCodecError("job record: not a CZKJ record");
  const uint32_t version = r.U32("version");
  if (version != kJobCodecVersion)
    throw JobCodecError("job record: version " + std::to_string(version) + ", this daemon reads version " +
                        std::to_string(kJobCodecVersion));
  DecodedJobInputs out;
  out.job = std::make_shared<ProofJob>();
  ProofJob& job = *out.job;
  const uint32_t kind = r.U32("kind");
  if (kind != uint32_t(JobKind::kSnapDeals) && kind != uint32_t(JobKind::kGenericR1cs))
    throw JobCodecError("job record: kind " + std::to_string(kind) + " is not a kind this daemon proves");
  job.kind = JobKind(kind);
  const uint32_t priority = r.U32("priority");
  if (priority < uint32_t(Priority::kLow) || priority > uint32_t(Priority::kCritical))
    throw JobCodecError("job record: priority " + std::to_string(priority) + " is not a Priority (1..4)");
  job.priority = Priority(priority);
  out.circuit_id = r.Str("circuit_id");
  if (job.kind == JobKind::kGenericR1cs) {
    DecodeGeneric(r, job);
  } else {
    DecodeSnap(r, job);
  }
  r.ExpectEnd();
  return out;
}

}  // namespace cuzk::prover
