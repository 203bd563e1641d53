// The error for a spec that cannot be run.
#pragma once

#include <stdexcept>
#include <string>

namespace attnlab::spec {

/// A refused spec: which file, which JSON path (RFC 6901 pointer, "" for the
/// whole document), what is wrong and what would be valid. what() joins them
/// as "FILE: at PATH: PROBLEM" so every front end prints the same words.
/// The CLI maps it to exit code 2.
class SpecError : public std::runtime_error {
 public:
  SpecError(std::string file, std::string path, std::string problem)
      : std::runtime_error(file + ": " + (path.empty() ? std::string("") : "at " + path + ": ") +
                           problem),
        file_(std::move(file)),
        path_(std::move(path)),
        problem_(std::move(problem)) {}
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, path_, problem_;
};

}  // namespace attnlab::spec
