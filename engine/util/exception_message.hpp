#pragma once
// The message of an exception held in an exception_ptr (what() for a
// std::exception, "unknown error" otherwise), for logs and errors that
// carry another thread's failure.
#include <exception>
#include <string>

namespace cuzk::util {

inline std::string ExceptionMessage(const std::exception_ptr& e) {
  if (!e) return "no error";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace cuzk::util
