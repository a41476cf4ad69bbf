#pragma once
// The one exception type of the snarkjs readers. Every message names the file
// (or "proof.json"-style source name), the section or field, and what was
// expected, so that a user can tell a truncated download from a zkey made for
// another circuit without reading our code.
//
// Kinds separate "cannot use this input" from "this input is a well-formed
// statement that is false": a verifier maps kMalformed to "unusable input"
// (cuzk-cli exit 2) and kInvalidValue (a coordinate >= p, a point off the
// curve or outside the subgroup, a public signal >= r) to "invalid proof"
// (exit 1), as snarkjs does, which answers false for those.
#include <stdexcept>
#include <string>

namespace cuzk::snarkjs {

enum class ErrorKind {
  kMalformed,     // unreadable, truncated, wrong magic/prime/protocol, inconsistent counts
  kInvalidValue,  // syntactically fine, but a value is not a field element / group element
};

class FormatError : public std::runtime_error {
 public:
  FormatError(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  explicit FormatError(const std::string& message) : FormatError(ErrorKind::kMalformed, message) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace cuzk::snarkjs
