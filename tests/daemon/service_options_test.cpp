// The service's config keys ([requests], [fallback]) through ParseConfig and
// ServiceOptionsFor: the example file's values are the defaults, values
// reach the options, and bad ones are refused naming the key.
#include <gtest/gtest.h>

#include <string>

#include "daemon/config.hpp"
#include "daemon/proving_service.hpp"

namespace cuzk::daemon {
namespace {

namespace v1 = cuzk::v1;

std::string ErrorOf(const std::string& toml) {
  try {
    ServiceOptionsFor(ParseConfig(toml, "test.toml"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ServiceOptions, ExampleFileHasTheDefaults) {
  const Config c = LoadConfigFile(CUZK_SOURCE_DIR "/daemon/cuzk.example.toml");
  const Config d;
  EXPECT_EQ(c.requests.max_vanilla_proofs, d.requests.max_vanilla_proofs);
  EXPECT_EQ(c.requests.max_vanilla_proof_bytes, d.requests.max_vanilla_proof_bytes);
  EXPECT_EQ(c.fallback.address, d.fallback.address);
  EXPECT_EQ(c.fallback.kinds, d.fallback.kinds);
  const ServiceOptions o = ServiceOptionsFor(c);
  EXPECT_EQ(o.limits.max_vanilla_proofs, RequestLimits{}.max_vanilla_proofs);
  EXPECT_EQ(o.limits.max_vanilla_proof_bytes, RequestLimits{}.max_vanilla_proof_bytes);
  EXPECT_EQ(o.fallback, nullptr);  // no address: nothing forwarded
}

TEST(ServiceOptions, ValuesReachTheOptions) {
  const ServiceOptions o = ServiceOptionsFor(
      ParseConfig("[requests]\nmax_vanilla_proofs = 4\nmax_vanilla_proof_size = \"2MiB\"\n"
                  "[fallback]\naddress = \"unix:///run/curio/other.sock\"\nkinds = [\"SNAP_DEALS_UPDATE\"]\n",
                  "test.toml"));
  EXPECT_EQ(o.limits.max_vanilla_proofs, 4u);
  EXPECT_EQ(o.limits.max_vanilla_proof_bytes, 2u << 20);
  ASSERT_NE(o.fallback, nullptr);
  EXPECT_EQ(o.fallback->address(), "unix:///run/curio/other.sock");
  EXPECT_TRUE(o.fallback->Forwards(v1::SNAP_DEALS_UPDATE));
  EXPECT_FALSE(o.fallback->Forwards(v1::WINDOW_POST_PARTITION));
  // The default kinds: all but ours.
  const ServiceOptions d = ServiceOptionsFor(ParseConfig("[fallback]\naddress = \"127.0.0.1:9821\"\n", "test.toml"));
  ASSERT_NE(d.fallback, nullptr);
  for (auto k : {v1::POREP_SEAL_COMMIT, v1::WINDOW_POST_PARTITION, v1::WINNING_POST})
    EXPECT_TRUE(d.fallback->Forwards(k)) << k;
  for (auto k : {v1::SNAP_DEALS_UPDATE, v1::GENERIC_R1CS}) EXPECT_FALSE(d.fallback->Forwards(k)) << k;
}

TEST(ServiceOptions, BadValuesNameTheKey) {
  std::string e = ErrorOf("[fallback]\nkinds = [\"SNAP\"]\n");
  EXPECT_NE(e.find("fallback.kinds"), std::string::npos) << e;
  EXPECT_NE(e.find("SNAP_DEALS_UPDATE"), std::string::npos) << e;
  e = ErrorOf("[requests]\nmax_vanilla_proofs = 0\n");
  EXPECT_NE(e.find("requests.max_vanilla_proofs"), std::string::npos) << e;
  e = ErrorOf("[requests]\nmax_vanilla_proof_size = \"1 MiB\"\n");
  EXPECT_NE(e.find("requests.max_vanilla_proof_size"), std::string::npos) << e;
  e = ErrorOf("[fallback]\nport = 1\n");
  EXPECT_NE(e.find("fallback.port"), std::string::npos) << e;
}

TEST(ServiceOptions, ForwardedIdsAndQueueNames) {
  EXPECT_EQ(FallbackEngine::ClientId("snap-1-2"), "fallback-snap-1-2");
  EXPECT_EQ(FallbackEngine::FallbackId("fallback-snap-1-2"), "snap-1-2");
  EXPECT_EQ(FallbackEngine::FallbackId("snap-1-2"), std::nullopt);
  EXPECT_EQ(FallbackEngine::FallbackId("fallback-"), std::nullopt);
  EXPECT_EQ(QueueKind("WINDOW_POST_PARTITION"), v1::WINDOW_POST_PARTITION);
  EXPECT_EQ(QueueKind("snap_deals"), v1::SNAP_DEALS_UPDATE);
  EXPECT_EQ(QueueKind("PoRep"), v1::POREP_SEAL_COMMIT);
  EXPECT_EQ(QueueKind("winning-post"), v1::WINNING_POST);
  EXPECT_EQ(QueueKind("something else"), std::nullopt);
}

}  // namespace
}  // namespace cuzk::daemon
