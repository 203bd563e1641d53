// Result files that are either complete or absent.
#pragma once

#include <string>

namespace attnlab::report {

/// Writes `content` to `path` through a temporary file in the same folder
/// and a rename, so a run that fails halfway never leaves a half-written
/// result. Throws std::runtime_error naming the path when it cannot write.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace attnlab::report
