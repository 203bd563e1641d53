// Running the attnlab binary as a user would, for end-to-end tests.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace attnlab::testing {

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

/// The bytes of file p; throws when it cannot be read (a missing file is
/// never "").
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A scratch folder of its own for each test, removed afterwards.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("attnlab_test_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& file, const std::string& content) const {
    const auto p = path / file;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
};

/// s with its first `from` replaced by `to`; throws when s has no `from`,
/// so a test never edits nothing.
inline std::string replace_first(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' to replace");
  return s.replace(at, from.size(), to);
}

/// Runs `attnlab ARGS` through the shell (ARGS is shell text, so globs
/// expand), in `cwd` when given, after the shell text `before` (e.g.
/// "ulimit -f 0; ").
inline Outcome run_binary(const std::string& binary, const std::string& args, const ScratchDir& dir,
                          const std::string& cwd = "", const std::string& before = "") {
  const auto out = dir.path / "stdout.txt", err = dir.path / "stderr.txt";
  const std::string cmd = before + (cwd.empty() ? std::string() : "cd '" + cwd + "' && ") + "'" + binary +
                          "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

inline Outcome run_attnlab(const std::string& args, const ScratchDir& dir, const std::string& cwd = "",
                           const std::string& before = "") {
  return run_binary(ATTNLAB_BINARY, args, dir, cwd, before);
}

}  // namespace attnlab::testing
