#include "tests/daemon/daemon_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace cuzk::test {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
// The build's paths, unless the environment names others: the daemon tests
// also run on a GPU host from a bundle (tools/gpu-host/daemon_tests_run.sh),
// where the build tree does not exist.
std::string FromEnv(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
std::string DaemonBin() { return FromEnv("CUZK_DAEMON_BIN", CUZK_DAEMON_BIN); }
}  // namespace

std::string FixtureDir() { return FromEnv("CUZK_DAEMON_FIXTURE_DIR", CUZK_DAEMON_FIXTURE_DIR); }
std::string SectorDir() { return FixtureDir() + "/sector-2k"; }
std::string ParamCache() { return FixtureDir() + "/params"; }
std::string R1csFixtureDir() { return FromEnv("CUZK_DAEMON_R1CS_FIXTURE_DIR", CUZK_DAEMON_R1CS_FIXTURE_DIR); }

namespace {

std::string MakeTempDir() {
  std::string tmpl = (fs::temp_directory_path() / "cuzk-daemon-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// fork + exec of the daemon with stdout to a pipe and stderr to `log`.
// Between fork and exec the child only makes system calls: the test process
// has other threads (gRPC's), and one of them may hold a lock the child
// would need (malloc's, stdio's: std::fopen took both). The log is opened
// before the fork, and every descriptor made here is close-on-exec, so a
// daemon started meanwhile from another thread inherits none of them (a
// second daemon holding this pipe's write end would keep its reader from
// seeing EOF after this daemon died).
pid_t Spawn(const std::string& config, const std::string& log, int* stdout_fd) {
  const std::string bin = DaemonBin();
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error("cannot create " + log + ": " + std::strerror(errno));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    close(log_fd);
    throw std::runtime_error("pipe failed");
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);  // dup2's copies are not close-on-exec
    dup2(log_fd, STDERR_FILENO);
    execl(bin.c_str(), bin.c_str(), "--config", config.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(log_fd);
  close(fds[1]);
  *stdout_fd = fds[0];
  return pid;
}

int WaitExit(pid_t pid, std::chrono::seconds timeout) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

}  // namespace

DaemonProcess::DaemonProcess(const std::string& extra_toml, bool with_defaults, const std::string& param_cache) {
  dir_ = MakeTempDir();
  socket_ = dir_ + "/run/cuzk.sock";  // parent created by the daemon
  log_path_ = dir_ + "/daemon.log";
  std::string toml;
  if (with_defaults) {
    const std::string cache_line = "param_cache = \"" + (param_cache.empty() ? ParamCache() : param_cache) + "\"\n";
    std::string extra = extra_toml;
    // An [srs] table of the caller's gets the param_cache line (TOML allows one [srs]).
    const size_t srs = extra.find("[srs]\n");
    if (srs != std::string::npos && extra.find("param_cache", srs) == std::string::npos)
      extra.insert(srs + 6, cache_line);
    toml = "[daemon]\nlisten = \"unix://" + socket_ + "\"\nstatus_listen = \"127.0.0.1:0\"\n" + extra +
           (srs != std::string::npos ? "" : "\n[srs]\n" + cache_line);
  } else {
    toml = extra_toml;
  }
  const std::string config = dir_ + "/cuzk.toml";
  WriteText(config, toml);
  int out_fd = -1;
  pid_ = Spawn(config, log_path_, &out_fd);
  std::string line;
  const auto end = Clock::now() + std::chrono::seconds(60);
  while (line.find('\n') == std::string::npos && Clock::now() < end) {
    pollfd p{out_fd, POLLIN, 0};
    if (poll(&p, 1, 200) > 0) {
      char buf[256];
      ssize_t n = read(out_fd, buf, sizeof buf);
      if (n <= 0) break;
      line.append(buf, size_t(n));
    }
  }
  close(out_fd);
  if (line.rfind("READY ", 0) != 0) {
    kill(pid_, SIGKILL);
    WaitExit(pid_, std::chrono::seconds(10));
    pid_ = -1;
    const std::string log = ReadText(log_path_);
    std::error_code ec;
    fs::remove_all(dir_, ec);  // no destructor runs after a constructor throws
    throw std::runtime_error("cuzk-daemon did not become ready; stdout \"" + line + "\", log:\n" + log);
  }
  const size_t at = line.find("status=127.0.0.1:");
  if (at != std::string::npos) status_port_ = std::atoi(line.c_str() + at + 17);
  if (const size_t g = line.find("grpc="); g != std::string::npos) {
    grpc_target_ = line.substr(g + 5, line.find_first_of(" \n", g) - g - 5);
  }
}

DaemonProcess::~DaemonProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    WaitExit(pid_, std::chrono::seconds(10));
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::unique_ptr<cuzk::v1::ProvingEngine::Stub> DaemonProcess::Stub() const {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  args.SetMaxSendMessageSize(256 << 20);
  return cuzk::v1::ProvingEngine::NewStub(
      grpc::CreateCustomChannel("unix:" + socket_, grpc::InsecureChannelCredentials(), args));
}

int DaemonProcess::Signal(int sig, std::chrono::seconds timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, sig);
  const int code = WaitExit(pid_, timeout);
  if (code >= 0) pid_ = -1;
  return code;
}

std::string DaemonProcess::Log() const { return ReadText(log_path_); }

std::string DaemonProcess::State() {
  if (pid_ <= 0) return "exited (reaped)";
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return "running";
  pid_ = -1;
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exited " + std::to_string(WEXITSTATUS(status));
}

std::pair<int, std::string> RunDaemonExpectingExit(const std::string& toml, std::chrono::seconds timeout) {
  const std::string dir = MakeTempDir();
  WriteText(dir + "/cuzk.toml", toml);
  int out_fd = -1;
  pid_t pid = Spawn(dir + "/cuzk.toml", dir + "/daemon.log", &out_fd);
  close(out_fd);
  int code = WaitExit(pid, timeout);
  if (code < 0) {
    kill(pid, SIGKILL);
    WaitExit(pid, std::chrono::seconds(10));
  }
  std::string log = ReadText(dir + "/daemon.log");
  std::error_code ec;
  fs::remove_all(dir, ec);
  return {code, log};
}

std::string HttpRequest(int port, const std::string& raw_request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    throw std::runtime_error("cannot connect to the status endpoint");
  }
  send(fd, raw_request.data(), raw_request.size(), MSG_NOSIGNAL);
  shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, size_t(n));
  close(fd);
  return out;
}

nlohmann::json GetStatusJson(int port) {
  const std::string r = HttpRequest(port, "GET /status HTTP/1.1\r\nHost: x\r\n\r\n");
  const size_t body = r.find("\r\n\r\n");
  if (r.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos)
    throw std::runtime_error("GET /status: " + r.substr(0, 200));
  return nlohmann::json::parse(r.substr(body + 4));
}

}  // namespace cuzk::test
