#pragma once
// The bearer token of `[auth] token_file`: read once at start, compared in
// constant time on every gRPC call and every non-liveness HTTP request.
//
//   const std::string token = LoadTokenFile("/etc/cuzk/token");   // throws naming the file
//   if (!BearerMatches(authorization_header_value, token)) ...    // -> UNAUTHENTICATED / 401
//
// The token itself is never logged: messages name the file, not its content.
#include <string>
#include <string_view>

namespace cuzk::daemon {

// Reads the file and strips trailing whitespace (a newline left by `echo`
// or an editor). std::runtime_error naming the file if it cannot be read,
// is empty, or holds a character a header cannot carry (control characters,
// spaces inside). Warns (spdlog) if the file is group- or world-readable.
std::string LoadTokenFile(const std::string& path);

// Compares without an early exit, so the time taken does not tell an
// attacker how many leading bytes were right (the lengths may differ in
// time: the length of a token is not secret).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// True if `header` is "Bearer <token>" (scheme case-insensitive, RFC 6750).
bool BearerMatches(std::string_view header, std::string_view token);

}  // namespace cuzk::daemon
