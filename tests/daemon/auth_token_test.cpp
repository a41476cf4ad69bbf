// The bearer token's file reader and its comparison (daemon/auth_token.hpp):
// what an operator's file may hold, and which header values match.
#include "daemon/auth_token.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cuzk::daemon {
namespace {

namespace fs = std::filesystem;

class TokenFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "cuzk-token-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& text) {
    const std::string path = dir_ + "/token";
    std::ofstream(path, std::ios::binary) << text;
    chmod(path.c_str(), 0600);
    return path;
  }
  std::string dir_;
};

TEST_F(TokenFile, TrailingNewlineAndSpacesAreDropped) {
  EXPECT_EQ(LoadTokenFile(Write("abc123\n")), "abc123");
  EXPECT_EQ(LoadTokenFile(Write("abc123\r\n")), "abc123");
  EXPECT_EQ(LoadTokenFile(Write("abc123 \t\n\n")), "abc123");
  EXPECT_EQ(LoadTokenFile(Write("a-b_c.d~e+f/g=")), "a-b_c.d~e+f/g=");
}

TEST_F(TokenFile, EmptyUnreadableOrMultiWordFilesAreRefusedNamingTheFile) {
  for (const std::string& text : {std::string(""), std::string("\n"), std::string(" \r\n")}) {
    const std::string path = Write(text);
    try {
      LoadTokenFile(path);
      ADD_FAILURE() << "accepted an empty token file";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(LoadTokenFile(Write("two words\n")), std::runtime_error);
  EXPECT_THROW(LoadTokenFile(Write("line1\nline2\n")), std::runtime_error);
  EXPECT_THROW(LoadTokenFile(Write(std::string("nul\0inside", 10))), std::runtime_error);
  // Not read whole: a token file is one line.
  EXPECT_THROW(LoadTokenFile(Write(std::string(5000, 'a'))), std::runtime_error);
  EXPECT_THROW(LoadTokenFile("/dev/zero"), std::runtime_error);
  const std::string missing = dir_ + "/missing";
  try {
    LoadTokenFile(missing);
    ADD_FAILURE() << "accepted a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
}

TEST(BearerToken, OnlyTheExactTokenAfterTheSchemeMatches) {
  const std::string token = "s3cret";
  EXPECT_TRUE(BearerMatches("Bearer s3cret", token));
  EXPECT_TRUE(BearerMatches("bearer s3cret", token));
  EXPECT_TRUE(BearerMatches("BEARER s3cret", token));
  EXPECT_FALSE(BearerMatches("", token));
  EXPECT_FALSE(BearerMatches("Bearer", token));
  EXPECT_FALSE(BearerMatches("Bearer ", token));
  EXPECT_FALSE(BearerMatches("s3cret", token));
  EXPECT_FALSE(BearerMatches("Basic s3cret", token));
  EXPECT_FALSE(BearerMatches("Bearer s3cre", token));
  EXPECT_FALSE(BearerMatches("Bearer s3cret ", token));
  EXPECT_FALSE(BearerMatches("Bearer s3creT", token));
  EXPECT_FALSE(BearerMatches("Bearer  s3cret", token));
  EXPECT_FALSE(BearerMatches("Bearers3cret", token));
}

TEST(BearerToken, ConstantTimeEqualsComparesEveryByte) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "xbc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals(std::string_view("a\0c", 3), std::string_view("a\0d", 3)));
}

}  // namespace
}  // namespace cuzk::daemon
