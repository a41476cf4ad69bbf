// Transport security of the real daemon (issue 19): TLS and mutual TLS on a
// TCP listener with certificates made here by the openssl CLI, the bearer
// token on every gRPC call and every HTTP path but /healthz, the unix
// socket's mode and group, startup refusals naming the file at fault, and
// the HTTP endpoint under idle and trickling (slowloris) clients.
#include <arpa/inet.h>
#include <grp.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace fs = std::filesystem;
namespace v1 = cuzk::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

constexpr char kToken[] = "s3cret-token-0123456789abcdef";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& text, mode_t mode = 0600) {
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

// A temporary directory with a CA, a server certificate for 127.0.0.1, a
// client certificate, a key of neither, and the token file.
class Pki {
 public:
  Pki() {
    std::string tmpl = (fs::temp_directory_path() / "cuzk-transport-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    Run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt "
        "-days 2 -subj /CN=cuzk-test-ca");
    Issue("server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth");
    Issue("client", "extendedKeyUsage=clientAuth");
    Run("openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out other.key");
    WriteFile(Path("token"), std::string(kToken) + "\n");
    fs::create_directories(Path("params"));
  }
  ~Pki() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Pem(const std::string& name) const { return ReadFile(Path(name)); }

  // A whole config: gRPC on 127.0.0.1:0 with TLS, HTTP on 127.0.0.1:0, the
  // fixture's 2 KiB parameters.
  std::string TlsConfig(const std::string& extra) const {
    return "[daemon]\nlisten = \"127.0.0.1:0\"\nstatus_listen = \"127.0.0.1:0\"\nshutdown_grace = \"2s\"\n"
           "[srs]\nparam_cache = \"" +
           ParamCache() + "\"\n[tls]\ncert_file = \"" + Path("server.crt") + "\"\nkey_file = \"" + Path("server.key") +
           "\"\n" + extra;
  }

 private:
  void Run(const std::string& cmd) const {
    const std::string full = "cd " + dir_ + " && " + cmd + " >>openssl.log 2>&1";
    if (std::system(full.c_str()) != 0) throw std::runtime_error(cmd + " failed:\n" + ReadFile(Path("openssl.log")));
  }
  void Issue(const std::string& name, const std::string& ext) const {
    WriteFile(Path(name + ".ext"), ext + "\n");
    Run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + name + ".key -out " + name +
        ".csr -subj /CN=" + name);
    Run("openssl x509 -req -in " + name + ".csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out " + name +
        ".crt -extfile " + name + ".ext");
  }
  std::string dir_;
};

std::unique_ptr<cuzk::v1::ProvingEngine::Stub> StubFor(const std::string& target,
                                                       std::shared_ptr<grpc::ChannelCredentials> creds) {
  return cuzk::v1::ProvingEngine::NewStub(grpc::CreateChannel(target, creds));
}

std::shared_ptr<grpc::ChannelCredentials> TlsClient(const Pki& pki, bool with_client_cert) {
  grpc::SslCredentialsOptions o;
  o.pem_root_certs = pki.Pem("ca.crt");
  if (with_client_cert) {
    o.pem_private_key = pki.Pem("client.key");
    o.pem_cert_chain = pki.Pem("client.crt");
  }
  return grpc::SslCredentials(o);
}

// GetStatus with an optional authorization value; returns the status.
grpc::Status GetStatus(cuzk::v1::ProvingEngine::Stub& stub, const std::string& authorization) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + seconds(10));
  if (!authorization.empty()) ctx.AddMetadata("authorization", authorization);
  cuzk::v1::GetStatusRequest req;
  cuzk::v1::GetStatusResponse resp;
  return stub.GetStatus(&ctx, req, &resp);
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

// The status line of GET path with optional extra header lines.
std::string StatusLine(int port, const std::string& path, const std::string& headers = "") {
  const std::string r = HttpRequest(port, "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n");
  return r.substr(0, r.find("\r\n"));
}

TEST(DaemonTransport, TlsWithTokenServesOnlyTheTokenHolder) {
  Pki pki;
  DaemonProcess d(pki.TlsConfig("[auth]\ntoken_file = \"" + pki.Path("token") + "\"\n"), /*with_defaults=*/false);
  ASSERT_EQ(d.grpc_target().rfind("127.0.0.1:", 0), 0u) << d.grpc_target();
  auto tls = StubFor(d.grpc_target(), TlsClient(pki, false));

  EXPECT_TRUE(GetStatus(*tls, std::string("Bearer ") + kToken).ok()) << d.Log();
  EXPECT_TRUE(GetStatus(*tls, std::string("bearer ") + kToken).ok()) << "the scheme is case-insensitive";
  const grpc::Status none = GetStatus(*tls, "");
  EXPECT_EQ(none.error_code(), grpc::StatusCode::UNAUTHENTICATED) << none.error_message();
  std::string wrong = kToken;
  wrong.back() ^= 1;  // same length, last byte differs
  EXPECT_EQ(GetStatus(*tls, "Bearer " + wrong).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(GetStatus(*tls, kToken).error_code(), grpc::StatusCode::UNAUTHENTICATED) << "no Bearer scheme";
  EXPECT_EQ(GetStatus(*tls, std::string("Bearer ") + kToken + "x").error_code(), grpc::StatusCode::UNAUTHENTICATED);

  // A 2 KiB SnapDeals proof over TLS with the token (Prove: the callback API
  // behind the same check), verified here; the same call without the token
  // is refused before any job exists.
  {
    v1::ProveRequest req;
    *req.mutable_submit() = FixtureSnapRequest("tls-proof");
    v1::ProveResponse resp;
    grpc::ClientContext refused_ctx;
    EXPECT_EQ(tls->Prove(&refused_ctx, req, &resp).error_code(), grpc::StatusCode::UNAUTHENTICATED);
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + kToken);
    ctx.set_deadline(std::chrono::system_clock::now() + Scaled(seconds(240)));
    const grpc::Status st = tls->Prove(&ctx, req, &resp);
    ASSERT_TRUE(st.ok()) << st.error_message() << "\n" << d.Log();
    ASSERT_EQ(resp.result().status(), v1::AwaitProofResponse::COMPLETED) << resp.result().error_message();
    EXPECT_TRUE(VerifyFixtureProof(resp.result().proof()));
  }

  // A plaintext client gets no answer from the TLS port.
  auto plain = StubFor(d.grpc_target(), grpc::InsecureChannelCredentials());
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + seconds(3));
  cuzk::v1::GetStatusResponse resp;
  const grpc::Status p = plain->GetStatus(&ctx, cuzk::v1::GetStatusRequest(), &resp);
  EXPECT_FALSE(p.ok());
  EXPECT_NE(p.error_code(), grpc::StatusCode::UNAUTHENTICATED) << "the handshake, not the token, must fail";

  // HTTP: liveness is open, everything else needs the same token.
  const int port = d.status_port();
  ASSERT_GT(port, 0);
  EXPECT_EQ(StatusLine(port, "/healthz"), "HTTP/1.1 200 OK");
  EXPECT_EQ(StatusLine(port, "/status"), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(StatusLine(port, "/metrics"), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(StatusLine(port, "/nope"), "HTTP/1.1 401 Unauthorized") << "the route list is not shown without the token";
  EXPECT_EQ(StatusLine(port, "/status", "Authorization: Bearer " + wrong + "\r\n"), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(StatusLine(port, "/status", std::string("Authorization: Bearer ") + kToken + "\r\n"), "HTTP/1.1 200 OK");
  EXPECT_EQ(StatusLine(port, "/metrics", std::string("Authorization: Bearer ") + kToken + "\r\n"), "HTTP/1.1 200 OK");

  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
  EXPECT_EQ(d.Log().find(kToken), std::string::npos) << "the token must never be logged";
}

TEST(DaemonTransport, MutualTlsRequiresAClientCertificateFromTheCa) {
  Pki pki;
  DaemonProcess d(pki.TlsConfig("client_ca_file = \"" + pki.Path("ca.crt") + "\"\n"), /*with_defaults=*/false);
  EXPECT_TRUE(GetStatus(*StubFor(d.grpc_target(), TlsClient(pki, true)), "").ok()) << d.Log();
  const grpc::Status no_cert = GetStatus(*StubFor(d.grpc_target(), TlsClient(pki, false)), "");
  EXPECT_FALSE(no_cert.ok());
  EXPECT_EQ(no_cert.error_code(), grpc::StatusCode::UNAVAILABLE) << no_cert.error_message();
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

TEST(DaemonTransport, UnixSocketHasItsModeAndGroupAndChecksTheToken) {
  // Default: 0660.
  {
    DaemonProcess d("");
    struct stat st {};
    ASSERT_EQ(stat(d.socket_path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0660u);
    EXPECT_EQ(d.Signal(SIGTERM), 0);
  }
  // Configured: 0600, a group, and a token on the (plaintext) socket. As
  // root, a group other than ours shows that chown happened.
  Pki pki;
  const gid_t gid = geteuid() == 0 ? 1 : getegid();
  DaemonProcess d("socket_mode = \"0600\"\nsocket_group = \"" + std::to_string(gid) + "\"\n[auth]\ntoken_file = \"" +
                  pki.Path("token") + "\"\n");
  struct stat st {};
  ASSERT_EQ(stat(d.socket_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_gid, gid);
  auto stub = d.Stub();
  EXPECT_EQ(GetStatus(*stub, "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(GetStatus(*stub, "Bearer nope").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(GetStatus(*stub, std::string("Bearer ") + kToken).ok()) << d.Log();
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

// Each bad setting stops the daemon before it serves, naming the file or key.
TEST(DaemonTransport, StartupRefusesBadFilesNamingThem) {
  Pki pki;
  WriteFile(pki.Path("empty-token"), "\n");
  WriteFile(pki.Path("garbage.crt"), "not a certificate\n");
  const std::string tls_base =
      "[daemon]\nlisten = \"127.0.0.1:0\"\nstatus_listen = \"\"\n[srs]\nparam_cache = \"" + pki.Path("params") + "\"\n";
  struct Case {
    std::string toml, must_name;
    int code;
  };
  const std::vector<Case> cases = {
      {tls_base + "[tls]\ncert_file = \"" + pki.Path("missing.crt") + "\"\nkey_file = \"" + pki.Path("server.key") +
           "\"\n",
       pki.Path("missing.crt"), 1},
      {tls_base + "[tls]\ncert_file = \"" + pki.Path("garbage.crt") + "\"\nkey_file = \"" + pki.Path("server.key") +
           "\"\n",
       pki.Path("garbage.crt"), 1},
      {tls_base + "[tls]\ncert_file = \"" + pki.Path("server.crt") + "\"\nkey_file = \"" + pki.Path("other.key") +
           "\"\n",
       pki.Path("other.key"), 1},
      {pki.TlsConfig("client_ca_file = \"" + pki.Path("nope-ca.crt") + "\"\n"), pki.Path("nope-ca.crt"), 1},
      {tls_base + "[tls]\nkey_file = \"" + pki.Path("server.key") + "\"\n", "cert_file", 1},
      {pki.TlsConfig("[auth]\ntoken_file = \"" + pki.Path("empty-token") + "\"\n"), pki.Path("empty-token"), 1},
      {pki.TlsConfig("[auth]\ntoken_file = \"" + pki.Path("no-token") + "\"\n"), pki.Path("no-token"), 1},
      {tls_base + "[auth]\ntoken_file = \"" + pki.Path("token") + "\"\n", "plaintext TCP", 1},
      {"[daemon]\nsocket_mode = \"0666\"\n", "daemon.socket_mode", 2},
      {"[daemon]\nsocket_mode = \"rw\"\n", "daemon.socket_mode", 2},
      {"[daemon]\nlisten = \"unix://" + pki.Path("s.sock") + "\"\nsocket_group = \"no-such-group-cuzk\"\n",
       "no-such-group-cuzk", 1},
      {"[daemon]\nstatus_listen = \"unix://" + pki.Path("http.sock") + "\"\n", "daemon.status_listen", 2},
  };
  for (const Case& c : cases) {
    const auto [code, log] = RunDaemonExpectingExit(c.toml, seconds(30));
    EXPECT_EQ(code, c.code) << c.toml << "\n" << log;
    EXPECT_NE(log.find(c.must_name), std::string::npos) << c.toml << "\n" << log;
  }
}

// Hostile-client finding 3: behind 5 silent and 5 trickling connections, on
// the old one-connection-at-a-time server /status took 9.8 s or never came.
TEST(DaemonTransport, StatusAnswersBehindIdleAndTricklingClients) {
  DaemonProcess d("");
  const int port = d.status_port();
  ASSERT_GT(port, 0);
  std::vector<int> idle;
  for (int i = 0; i < 5; ++i) idle.push_back(Connect(port));
  std::atomic<bool> stop{false};
  std::vector<std::thread> tricklers;
  // Joined on every exit, a failed assertion or a throw included.
  struct Joiner {
    std::atomic<bool>& stop;
    std::vector<std::thread>& threads;
    ~Joiner() {
      stop = true;
      for (std::thread& t : threads) t.join();
    }
  } joiner{stop, tricklers};
  for (int i = 0; i < 5; ++i) {
    tricklers.emplace_back([port, &stop] {
      int fd = -1;
      try {
        fd = Connect(port);
      } catch (const std::exception&) {
        return;  // the daemon is gone: the main thread's checks report it
      }
      const std::string req = "GET /status HTTP/1.1\r\nHost: x\r\nX-Slow: ";
      for (size_t k = 0; !stop && send(fd, &req[k % req.size()], 1, MSG_NOSIGNAL) == 1; ++k) {
        std::this_thread::sleep_for(milliseconds(100));
      }
      close(fd);
    });
  }
  std::this_thread::sleep_for(milliseconds(300));  // every slow client connected and holding a thread
  for (const std::string path : {"/status", "/metrics", "/status"}) {
    const auto t0 = Clock::now();
    EXPECT_EQ(StatusLine(port, path), "HTTP/1.1 200 OK") << path;
    const auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
    EXPECT_LT(ms, 1000) << path << " took " << ms << " ms behind slow clients";
  }
  // The silent ones are dropped at the request deadline (3 s), not held forever.
  for (int fd : idle) {
    pollfd p{fd, POLLIN, 0};
    EXPECT_EQ(poll(&p, 1, 6000), 1) << "an idle connection was not closed by the server";
    char c;
    EXPECT_EQ(recv(fd, &c, 1, 0), 0);
    close(fd);
  }
  stop = true;  // the tricklers hang up (the joiner waits for them)
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

// More connections than the cap (128 served + waiting): the excess gets a
// 503 at once, and the endpoint serves again once they are gone.
TEST(DaemonTransport, StatusConnectionCapAnswers503AndRecovers) {
  DaemonProcess d("");
  const int port = d.status_port();
  std::vector<int> fds;
  for (int i = 0; i < 160; ++i) fds.push_back(Connect(port));
  // Within 1 s (well before the 3 s deadline frees a served one), the
  // connections past the cap have their 503; the others nothing yet.
  std::this_thread::sleep_for(milliseconds(1000));
  int rejected = 0;
  for (int fd : fds) {
    char buf[64] = {};
    if (recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT) > 0 && std::string(buf).rfind("HTTP/1.1 503", 0) == 0) ++rejected;
  }
  // 32 exactly on an idle machine; fewer only if connecting took longer than
  // the deadline (a served connection then freed its slot). Never more.
  EXPECT_LE(rejected, 160 - 128);
  EXPECT_GE(rejected, 16) << "connections beyond the cap were not refused";
  for (int fd : fds) close(fd);
  const auto until = Clock::now() + seconds(10);
  std::string line;
  while (Clock::now() < until && (line = StatusLine(port, "/status")) != "HTTP/1.1 200 OK") {
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(line, "HTTP/1.1 200 OK");
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

// Hostile-client finding 1, for HTTP: a second daemon on the same status
// port must not start (httplib's default SO_REUSEPORT would let it).
// And a status_listen without a host binds 127.0.0.1.
TEST(DaemonTransport, StatusPortIsExclusiveAndBindsLocalhostByDefault) {
  const std::string dir = (fs::temp_directory_path() / ("cuzk-transport-" + std::to_string(getpid()))).string();
  fs::create_directories(dir);
  DaemonProcess d("[daemon]\nlisten = \"unix://" + dir + "/a.sock\"\nstatus_listen = \":0\"\n[srs]\nparam_cache = \"" +
                      dir + "\"\n",
                  /*with_defaults=*/false);
  ASSERT_GT(d.status_port(), 0) << "READY did not say status=127.0.0.1:PORT";
  const auto [code, log] =
      RunDaemonExpectingExit("[daemon]\nlisten = \"unix://" + dir + "/b.sock\"\nstatus_listen = \"127.0.0.1:" +
                                 std::to_string(d.status_port()) + "\"\n[srs]\nparam_cache = \"" + dir + "\"\n",
                             seconds(30));
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("status_listen"), std::string::npos) << log;
  EXPECT_EQ(StatusLine(d.status_port(), "/healthz"), "HTTP/1.1 200 OK");
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace cuzk::test
