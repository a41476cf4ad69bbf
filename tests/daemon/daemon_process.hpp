#pragma once
// The real cuzk-daemon binary as a child process for integration tests:
// started with a config file written from the given text, on a unix socket
// in a fresh temporary directory, and waited for until it prints READY.
//
//   DaemonProcess d(ConfigWithDefaults(""));   // throws if it does not become ready in 30 s
//   auto stub = d.Stub();
//   int code = d.Signal(SIGTERM);              // exit status (-1 on timeout)
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::test {

// The fixture's 2 KiB sector directory and parameter cache (CTest fixture).
std::string FixtureDir();
std::string SectorDir();
std::string ParamCache();
// The r1cs fixture: multi_public.{r1cs,zkey,wtns} (GENERIC_R1CS jobs).
std::string R1csFixtureDir();

class DaemonProcess {
 public:
  // extra_toml is appended to a config with listen = unix://<tmp>/cuzk.sock,
  // status_listen = 127.0.0.1:0 and srs.param_cache = the fixture's (when
  // with_defaults; an [srs] table in extra_toml gets that line). Waits for READY.
  // param_cache: instead of the fixture's.
  explicit DaemonProcess(const std::string& extra_toml, bool with_defaults = true, const std::string& param_cache = "");
  ~DaemonProcess();  // SIGKILL if still running

  std::unique_ptr<cuzk::v1::ProvingEngine::Stub> Stub() const;
  const std::string& socket_path() const { return socket_; }
  pid_t pid() const { return pid_; }  // -1 once it exited and was reaped
  int status_port() const { return status_port_; }
  // The gRPC address of the READY line ("unix:PATH", or "127.0.0.1:PORT"
  // with the kernel's port for a TCP listen on port 0).
  const std::string& grpc_target() const { return grpc_target_; }
  // Sends sig and waits up to `timeout` for the exit; returns the exit code
  // (128 + signal if killed by one), -1 on timeout.
  int Signal(int sig, std::chrono::seconds timeout = std::chrono::seconds(60));
  std::string Log() const;  // its stderr so far
  // "running", or how it ended ("exited 1", "killed by signal 11"): for
  // failure messages when an RPC finds the socket closed.
  std::string State();

 private:
  std::string dir_, socket_, log_path_;
  pid_t pid_ = -1;
  int status_port_ = 0;
  std::string grpc_target_;
};

// Runs the daemon binary with a config file of this text and no READY
// expected: returns {exit code, stderr}. For configs it must refuse.
std::pair<int, std::string> RunDaemonExpectingExit(const std::string& toml, std::chrono::seconds timeout);

// Raw HTTP/1.1 request to 127.0.0.1:port; returns the whole response.
std::string HttpRequest(int port, const std::string& raw_request);

// GET /status on 127.0.0.1:port, parsed; std::runtime_error unless 200 with a JSON body.
nlohmann::json GetStatusJson(int port);

}  // namespace cuzk::test
