#include "tests/daemon/snap_request.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/filecoin/base64.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/verifier.hpp"
#include "tests/daemon/daemon_process.hpp"

namespace cuzk::test {
namespace {

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

filecoin::Commitments FixtureCommitments() {
  const auto c = ReadJson(SectorDir() + "/commitments.json");
  filecoin::Commitments out;
  out.comm_r_old = filecoin::DomainFromHex(c.at("comm_r_old").get<std::string>(), "comm_r_old");
  out.comm_r_new = filecoin::DomainFromHex(c.at("comm_r_new").get<std::string>(), "comm_r_new");
  out.comm_d_new = filecoin::DomainFromHex(c.at("comm_d_new").get<std::string>(), "comm_d_new");
  return out;
}

std::string Raw(const filecoin::Domain& d) { return std::string(d.begin(), d.end()); }

}  // namespace

cuzk::v1::SubmitProofRequest FixtureSnapRequest(const std::string& request_id) {
  cuzk::v1::SubmitProofRequest r;
  r.set_request_id(request_id);
  r.set_proof_kind(cuzk::v1::SNAP_DEALS_UPDATE);
  r.set_sector_size(2048);
  const filecoin::Commitments c = FixtureCommitments();
  r.set_comm_r_old(Raw(c.comm_r_old));
  r.set_comm_r_new(Raw(c.comm_r_new));
  r.set_comm_d_new(Raw(c.comm_d_new));
  for (const auto& p : ReadJson(SectorDir() + "/vanilla_proofs.json")) {
    const auto bytes = filecoin::Base64Decode(p.get<std::string>());
    r.add_vanilla_proofs(std::string(bytes.begin(), bytes.end()));
  }
  return r;
}

bool VerifyFixtureProof(const std::string& proof) {
  const auto shape = filecoin::SectorShape::FromSectorSize(2048);
  if (proof.size() != shape.partitions * groth16::kProofBytes) return false;
  const std::string vk_path = ParamCache() + "/" + snapdeals::EmptySectorUpdateParamsStem(shape) + ".vk";
  const auto pvk = groth16::PrepareVerifyingKey(groth16::ReadVerifyingKey(vk_path));
  auto proofs = groth16::DecodeProofs(std::span(reinterpret_cast<const uint8_t*>(proof.data()), proof.size()));
  if (!proofs) return false;
  const filecoin::Commitments c = FixtureCommitments();
  for (unsigned k = 0; k < shape.partitions; ++k) {
    const auto inputs = snapdeals::PartitionPublicInputs(shape, k, c).AsArray();
    if (!groth16::Verify(pvk, (*proofs)[k], inputs)) return false;
  }
  return true;
}

}  // namespace cuzk::test
