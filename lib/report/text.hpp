// Formatting the course's tables.
#pragma once

#include <fmt/printf.h>

#include <string>

namespace attnlab::report {

/// printf-style formatting with C's rules (fmt::sprintf), so a course
/// script's '%8d %16.3f' format string is reused verbatim and rounds the
/// same way Python's % operator does (both round the exact binary value).
template <class... Args>
std::string printf(const char* format, const Args&... args) {
  return fmt::sprintf(format, args...);
}

}  // namespace attnlab::report
