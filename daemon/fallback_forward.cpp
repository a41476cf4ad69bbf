#include "daemon/fallback_forward.hpp"

#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "daemon/errors.hpp"

namespace cuzk::daemon {
namespace {

// What the forwarded call needs until its completion runs: shared by the
// reactor and the completion callback, so neither outlives it.
struct Outgoing {
  grpc::ClientContext ctx;
  grpc::ByteBuffer request, response;
};

// Finish runs once, from the forwarded call's completion; OnCancel only
// cancels the forwarded call (whose completion then answers CANCELLED).
class ForwardReactor final : public grpc::ServerUnaryReactor {
 public:
  ForwardReactor(FallbackEngine& fallback, grpc::ByteBuffer* out, std::string what, ResponseRewrite rewrite)
      : fallback_(fallback), out_(out), what_(std::move(what)), rewrite_(std::move(rewrite)) {}

  void Start(grpc::CallbackServerContext* ctx, const std::string& method, grpc::ByteBuffer request) {
    auto call = std::make_shared<Outgoing>();
    call->request = std::move(request);
    // The client's deadline (none: gRPC's infinite one) bounds the forwarded call too.
    call->ctx.set_deadline(ctx->deadline());
    FallbackEngine& fallback = fallback_;  // read before mu_ is given up (see OnDone)
    {
      absl::MutexLock lock(&mu_);
      call_ = call;
    }
    fallback.Call(&call->ctx, method, &call->request, &call->response,
                  [this, call](grpc::Status status) { Done(*call, std::move(status)); });
  }

  void OnCancel() override {
    std::shared_ptr<Outgoing> call;
    {
      absl::MutexLock lock(&mu_);
      call = call_;
    }
    if (call) call->ctx.TryCancel();
  }

  // gRPC calls OnDone after Finish and after the handler that called Start has
  // returned, but it orders them with its own locks and atomics, which a
  // sanitizer cannot see in Debian's (uninstrumented) gRPC: to ThreadSanitizer
  // the delete raced with Start's writes. Taking mu_ once makes every section
  // under it, and what the handler's thread did before its last one, happen
  // before the delete in a way any tool sees; one uncontended lock per call.
  void OnDone() override {
    { absl::MutexLock lock(&mu_); }
    delete this;
  }

 private:
  // The work runs under mu_ (it only rewrites the response: no call out of
  // this file): Start's section, and the constructor before it, then happen
  // before it, and it before OnDone's delete, for ThreadSanitizer too (the
  // forwarded call's completion reaches this thread through gRPC's own,
  // uninstrumented, synchronization). OnCancel, the only other taker, copies
  // call_ and leaves.
  void Done(Outgoing& call, grpc::Status status) {
    std::optional<std::string> failed;  // what_, for the log line after mu_ is given up
    {
      absl::MutexLock lock(&mu_);
      call_.reset();  // done with the forwarded call: a later OnCancel has nothing to cancel
      if (status.ok()) {
        try {
          rewrite_(call.response);
          *out_ = std::move(call.response);
        } catch (const std::exception& e) {
          status = grpc::Status(grpc::StatusCode::INTERNAL, "the fallback engine at " + fallback_.address() +
                                                                " answered " + what_ + ": " + e.what());
        }
      } else {
        status = fallback_.Explain(status, what_);
        failed = what_;
      }
    }
    if (failed) spdlog::warn("forwarded call ({}): {}", *failed, status.error_message());
    Finish(status);
  }

  FallbackEngine& fallback_;
  grpc::ByteBuffer* const out_;
  const std::string what_;
  const ResponseRewrite rewrite_;
  absl::Mutex mu_;
  std::shared_ptr<Outgoing> call_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

grpc::ServerUnaryReactor* Forward(FallbackEngine& fallback, grpc::CallbackServerContext* ctx, const std::string& method,
                                  grpc::ByteBuffer request, grpc::ByteBuffer* response, std::string what,
                                  ResponseRewrite rewrite) {
  auto* reactor = new ForwardReactor(fallback, response, std::move(what), std::move(rewrite));
  reactor->Start(ctx, method, std::move(request));
  return reactor;
}

}  // namespace cuzk::daemon
