#pragma once
// Forward: answers a gRPC call by the fallback engine (fallback_engine.hpp).
// The request goes out as bytes; the answer comes back through a rewrite of
// its ids. Nothing blocks: the reactor finishes from the forwarded call's
// completion.
#include <functional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "daemon/fallback_engine.hpp"

namespace cuzk::daemon {

// Answers a call by forwarding it: `request` goes to the fallback's `method`,
// its answer through `rewrite` (ids; may throw InvalidRequestError) to the
// client. The client's deadline is passed on, and a client that hangs up
// cancels the forwarded call (a forwarded Prove then ends at the fallback too).
using ResponseRewrite = std::function<void(grpc::ByteBuffer&)>;
grpc::ServerUnaryReactor* Forward(FallbackEngine& fallback, grpc::CallbackServerContext* ctx, const std::string& method,
                                  grpc::ByteBuffer request, grpc::ByteBuffer* response, std::string what,
                                  ResponseRewrite rewrite);

}  // namespace cuzk::daemon
