#pragma once
// Test helpers over the fixture's 2 KiB sector: the SubmitProofRequest for
// it and in-process verification of a returned proof (engine verifier, the
// fixture's .vk).
#include <string>

#include "cuzk/v1/proving.pb.h"

namespace cuzk::test {

cuzk::v1::SubmitProofRequest FixtureSnapRequest(const std::string& request_id = "");
// True when `proof` is one valid 192-byte proof per partition for the fixture sector.
bool VerifyFixtureProof(const std::string& proof);

}  // namespace cuzk::test
