// cuzk-daemon: the gRPC proving daemon (cuzk.v1.ProvingEngine).
//
//   cuzk-daemon --config /etc/cuzk.toml [--listen unix:///run/curio/cuzk.sock] [--log-level debug]
//               [--status-listen 127.0.0.1:9821] [--param-cache DIR] [--log-format json]
//
// Exit codes: 0 after SIGTERM/SIGINT (graceful), 2 for a bad config or
// command line, 1 when it cannot start (address in use, ...). When every
// listener is up it prints one line to stdout,
//   READY grpc=<target> status=<host:port or "off">
// so that scripts and tests can wait for it (with listen "HOST:0" the
// kernel's port is in the line).
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <jemalloc/jemalloc.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "daemon/auth_token.hpp"
#include "daemon/config.hpp"
#include "daemon/http_server.hpp"
#include "daemon/listen_address.hpp"
#include "daemon/logging.hpp"
#include "daemon/proving_service.hpp"
#include "daemon/socket_permissions.hpp"
#include "daemon/status_json.hpp"
#include "daemon/tls_credentials.hpp"
#include "prover/prover.hpp"

namespace cuzk::daemon {
namespace {

constexpr const char* kServiceName = "cuzk.v1.ProvingEngine";

struct Args {
  std::string config_path, listen, status_listen, param_cache, log_level, log_format;
};

std::string AllocatorVersion() {
  const char* version = nullptr;
  size_t len = sizeof version;
  if (mallctl("version", &version, &len, nullptr, 0) == 0 && version) return std::string("jemalloc ") + version;
  return "unknown allocator";
}

Config LoadAndOverride(const Args& a) {
  Config c = a.config_path.empty() ? Config{} : LoadConfigFile(a.config_path);
  if (!a.listen.empty()) c.daemon.listen = a.listen;
  if (!a.status_listen.empty()) c.daemon.status_listen = a.status_listen == "off" ? "" : a.status_listen;
  // The HTTP endpoint is loopback unless an address says otherwise: ":9821" is 127.0.0.1:9821.
  if (c.daemon.status_listen.starts_with(":")) c.daemon.status_listen = "127.0.0.1" + c.daemon.status_listen;
  if (!a.param_cache.empty()) c.srs.param_cache = a.param_cache;
  if (!a.log_level.empty()) c.logging.level = a.log_level;
  if (!a.log_format.empty()) c.logging.format = a.log_format;
  static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  if (std::find(std::begin(kLevels), std::end(kLevels), c.logging.level) == std::end(kLevels)) {
    throw ConfigError("logging.level = \"" + c.logging.level +
                      "\": expected trace, debug, info, warn, error, critical or off");
  }
  if (c.logging.format != "text" && c.logging.format != "json") {
    throw ConfigError("logging.format = \"" + c.logging.format + "\": expected \"text\" or \"json\"");
  }
  try {
    ParseListenAddress(c.daemon.listen, "daemon.listen");
    if (!c.daemon.status_listen.empty() && ParseListenAddress(c.daemon.status_listen, "daemon.status_listen").is_unix) {
      throw std::invalid_argument("daemon.status_listen = \"" + c.daemon.status_listen +
                                  "\": the HTTP endpoint listens on TCP only (HOST:PORT, e.g. 127.0.0.1:9821)");
    }
  } catch (const std::invalid_argument& e) {
    throw ConfigError(std::string("config key ") + e.what());
  }
  return c;
}

// What guards the listeners, from [tls], [auth] and the socket keys; read
// before anything heavy starts, so a bad file stops the daemon at once
// (exit 1, naming the file). The token is never logged.
struct Transport {
  std::optional<std::string> token;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  SocketPermissions socket;
};

Transport LoadTransport(const Config& config, const ListenAddress& listen) {
  Transport t;
  if (!config.auth.token_file.empty()) t.token = LoadTokenFile(config.auth.token_file);
  t.credentials = ServerCredentialsFor(listen, config.tls, t.token);
  t.socket = ResolveSocketPermissions(mode_t(config.daemon.socket_mode), config.daemon.socket_group);
  const bool tls = !listen.is_unix && TlsConfigured(config.tls);
  spdlog::info("transport: {}, {}", tls ? (config.tls.client_ca_file.empty() ? "TLS" : "mutual TLS") : "plaintext",
               t.token ? "bearer token from " + config.auth.token_file + " required" : std::string("no token"));
  return t;
}

int Run(const Config& config) {
  SetupLogging(config.logging.level, config.logging.format);
  const ListenAddress listen = ParseListenAddress(config.daemon.listen, "daemon.listen");
  const Transport transport = LoadTransport(config, listen);
  spdlog::info("cuzk-daemon starting: listen {}, param_cache {}, {} synthesis thread(s) x {} thread(s), {}",
               config.daemon.listen, config.srs.param_cache, config.pipeline.synthesis_concurrency,
               config.synthesis.threads, AllocatorVersion());
  prover::Prover core(ProverOptionsFor(config));
  // Loads on a thread of its own while the daemon serves; a bad id or missing
  // files stop the start here.
  try {
    core.PreloadInBackground(config.srs.preload);
  } catch (const std::exception& e) {
    spdlog::error("srs.preload: {}", e.what());
    return 1;
  }

  if (listen.is_unix) PrepareUnixSocketPath(listen.path);
  ProvingService service(&core, config);  // [requests] limits, rpc_threads (its RpcPool)
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(listen.GrpcTarget(), transport.credentials, listen.is_unix ? nullptr : &bound_port);
  const int limit = int(std::min<uint64_t>(config.daemon.max_message_bytes, INT32_MAX));
  builder.SetMaxReceiveMessageSize(limit);
  builder.SetMaxSendMessageSize(limit);
  // gRPC sets SO_REUSEPORT by default: a second daemon on the same port
  // would then start and silently take half the connections. Off, the bind
  // fails and this one exits naming the address.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // gRPC's memory quota for its buffers of messages in flight, every
  // connection together (daemon.rpc_memory). It is soft: past it gRPC stops
  // accepting new connections and shrinks its flow-control windows until
  // memory is given back, which slows N clients each sending a
  // max_message_size message (the request checks of daemon/request_scan.hpp
  // run only once a message is whole); it does not count the parsed copies.
  // SetMaxThreads bounds what gRPC's synchronous services (the health
  // check) may take; ProvingService's calls run on the RpcPool's
  // rpc_threads.
  grpc::ResourceQuota quota("cuzk-daemon");
  quota.Resize(size_t(std::min<uint64_t>(config.daemon.rpc_memory_bytes, SIZE_MAX)));
  quota.SetMaxThreads(int(config.daemon.rpc_threads));
  builder.SetResourceQuota(quota);
  builder.RegisterService(&service);
  // The socket is born with no more access than its final mode and group
  // allow (daemon/socket_permissions.hpp), not chmod-ed after a window.
  std::unique_ptr<grpc::Server> server;
  {
    std::optional<ScopedSocketUmask> umask_guard;
    if (listen.is_unix) umask_guard.emplace(transport.socket);
    server = builder.BuildAndStart();
  }
  if (!server) {
    spdlog::error("cannot listen on {} (in use by another process, or not a bindable address)", config.daemon.listen);
    return 1;
  }
  std::string grpc_target = listen.GrpcTarget();
  if (listen.is_unix) {
    ApplySocketPermissions(listen.path, transport.socket);
  } else {
    grpc_target = (listen.host.find(':') != std::string::npos ? "[" + listen.host + "]" : listen.host) + ":" +
                  std::to_string(bound_port);
  }
  server->GetHealthCheckService()->SetServingStatus(kServiceName, true);
  server->GetHealthCheckService()->SetServingStatus(true);

  std::unique_ptr<HttpServer> http;
  std::string status_where = "off";
  if (!config.daemon.status_listen.empty()) {
    const ListenAddress a = ParseListenAddress(config.daemon.status_listen, "daemon.status_listen");
    http = std::make_unique<HttpServer>(
        a,
        std::vector<HttpServer::Route>{
            {"/status", "application/json", [&core, &config] { return StatusJson(core, config.synthesis.threads); }},
            {"/metrics", "text/plain; version=0.0.4; charset=utf-8", [&core] { return core.MetricsText(); }}},
        transport.token);
    status_where = http->host() + ":" + std::to_string(http->port());
  }
  spdlog::info("serving {} on {} (message limit {} bytes), status endpoint {}", kServiceName, grpc_target, limit,
               status_where);
  std::printf("READY grpc=%s status=%s\n", grpc_target.c_str(), status_where.c_str());
  std::fflush(stdout);

  // SIGTERM/SIGINT were blocked in every thread (main, before any was
  // created); this thread waits for them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  int sig = 0;
  sigwait(&set, &sig);
  const auto grace = config.daemon.shutdown_grace;
  spdlog::info("{}: shutting down (running jobs get {} ms)", sig == SIGTERM ? "SIGTERM" : "SIGINT", grace.count());
  server->GetHealthCheckService()->SetServingStatus(false);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  // New RPCs are refused at once; RPCs in flight (waiters) end when their jobs do.
  const auto grpc_deadline = std::chrono::system_clock::now() + grace + std::chrono::seconds(3);
  std::thread stopper([&] { server->Shutdown(grpc_deadline); });
  const bool stopped = core.Shutdown(deadline);
  stopper.join();
  server->Wait();
  if (http) http->Stop();
  if (listen.is_unix) unlink(listen.path.c_str());
  if (!stopped) {
    // A worker is inside an engine call that cannot be interrupted; its job
    // was cancelled and its waiters answered. Leave without joining it.
    spdlog::warn("a worker is still inside an engine call: exiting without waiting for it");
    spdlog::shutdown();
    std::fflush(nullptr);
    _exit(0);
  }
  spdlog::info("stopped");
  return 0;
}

}  // namespace
}  // namespace cuzk::daemon

int main(int argc, char** argv) {
  // Before any thread exists, so that every thread inherits the mask and only
  // sigwait sees these signals.
  // Default dispositions first: a shell starts background jobs with SIGINT
  // ignored, and an ignored signal never reaches sigwait.
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  cuzk::daemon::Args args;
  CLI::App app("cuzk-daemon: Groth16 proving daemon (cuzk.v1.ProvingEngine over gRPC)");
  app.add_option("--config", args.config_path, "TOML config file (daemon/cuzk.example.toml documents every key)");
  app.add_option("--listen", args.listen, "override daemon.listen: unix://PATH or HOST:PORT");
  app.add_option("--status-listen", args.status_listen, "override daemon.status_listen (HOST:PORT, off)");
  app.add_option("--param-cache", args.param_cache, "override srs.param_cache");
  app.add_option("--log-level", args.log_level, "override logging.level");
  app.add_option("--log-format", args.log_format, "override logging.format (text, json)");
  CLI11_PARSE(app, argc, argv);
  cuzk::daemon::Config config;
  try {
    config = cuzk::daemon::LoadAndOverride(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-daemon: %s\n", e.what());
    return 2;
  }
  try {
    return cuzk::daemon::Run(config);
  } catch (const std::exception& e) {
    spdlog::error("cuzk-daemon: {}", e.what());
    return 1;
  }
}
