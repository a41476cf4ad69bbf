#include "daemon/tls_credentials.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "daemon/auth_grpc.hpp"

namespace cuzk::daemon {
namespace {

// A certificate chain or CA bundle is kilobytes (Debian's whole CA store is
// 220 KB): reading stops past 4 MiB, so a path to a device or a huge file is
// refused instead of read into memory.
constexpr size_t kMaxPemBytes = 4u << 20;

std::string ReadFile(const std::string& key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("tls." + key + " " + path + ": cannot read it (" + std::strerror(errno) + ")");
  std::string text(kMaxPemBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (in.bad()) throw std::runtime_error("tls." + key + " " + path + ": read error");
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxPemBytes) {
    throw std::runtime_error("tls." + key + " " + path + ": larger than 4 MiB (not a PEM certificate or key)");
  }
  return text;
}

// OpenSSL's own reason for the last failure, and the error queue cleared.
std::string OpenSslReason() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no PEM block found";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Bio MemBio(const std::string& pem) { return Bio(BIO_new_mem_buf(pem.data(), int(pem.size())), &BIO_free); }

// The first certificate of a PEM file; throws naming the key and the file.
X509Ptr FirstCertificate(const std::string& pem, const std::string& key, const std::string& path) {
  Bio bio = MemBio(pem);
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  if (!cert) throw std::runtime_error("tls." + key + " " + path + ": not a PEM certificate (" + OpenSslReason() + ")");
  return cert;
}

KeyPtr PrivateKey(const std::string& pem, const std::string& path) {
  Bio bio = MemBio(pem);
  KeyPtr pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!pkey) {
    throw std::runtime_error("tls.key_file " + path + ": not an unencrypted PEM private key (" + OpenSslReason() + ")");
  }
  return pkey;
}

}  // namespace

bool TlsConfigured(const Config::Tls& tls) {
  return !tls.cert_file.empty() || !tls.key_file.empty() || !tls.client_ca_file.empty();
}

TlsFiles LoadTlsFiles(const Config::Tls& tls) {
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    throw std::runtime_error("[tls] needs both cert_file and key_file (client_ca_file alone cannot serve TLS)");
  }
  TlsFiles files;
  files.cert_chain = ReadFile("cert_file", tls.cert_file);
  files.private_key = ReadFile("key_file", tls.key_file);
  const X509Ptr cert = FirstCertificate(files.cert_chain, "cert_file", tls.cert_file);
  const KeyPtr pkey = PrivateKey(files.private_key, tls.key_file);
  if (X509_check_private_key(cert.get(), pkey.get()) != 1) {
    ERR_clear_error();
    throw std::runtime_error("tls.key_file " + tls.key_file +
                             " is not the private key of the certificate in tls.cert_file " + tls.cert_file);
  }
  if (!tls.client_ca_file.empty()) {
    files.client_ca = ReadFile("client_ca_file", tls.client_ca_file);
    FirstCertificate(files.client_ca, "client_ca_file", tls.client_ca_file);
  }
  return files;
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentialsFor(const ListenAddress& listen, const Config::Tls& tls,
                                                              const std::optional<std::string>& token) {
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (listen.is_unix) {
    if (TlsConfigured(tls))
      spdlog::warn("[tls] applies to TCP listeners; the unix socket {} stays plaintext", listen.path);
    if (!token) return grpc::InsecureServerCredentials();
    creds = grpc::experimental::LocalServerCredentials(UDS);
  } else if (TlsConfigured(tls)) {
    const TlsFiles files = LoadTlsFiles(tls);
    grpc::SslServerCredentialsOptions options(files.client_ca.empty()
                                                  ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                                  : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    options.pem_root_certs = files.client_ca;
    options.pem_key_cert_pairs.push_back({files.private_key, files.cert_chain});
    creds = grpc::SslServerCredentials(options);
  } else {
    if (token) {
      throw std::runtime_error("auth.token_file is set but daemon.listen " + listen.GrpcTarget() +
                               " is plaintext TCP: the token would cross the network in clear; set [tls] cert_file "
                               "and key_file (or listen on a unix socket)");
    }
    return grpc::InsecureServerCredentials();
  }
  if (token) creds->SetAuthMetadataProcessor(std::make_shared<BearerTokenProcessor>(*token));
  return creds;
}

}  // namespace cuzk::daemon
