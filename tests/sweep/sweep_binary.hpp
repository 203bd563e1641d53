// Running `attnlab sweep` as a researcher would, for the end-to-end tests.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_binary.hpp"

extern char** environ;

namespace attnlab::testing {

namespace fs = std::filesystem;

const std::string kSpecs = ATTNLAB_EXPERIMENTS_DIR;

/// A bottleneck table small enough for a test: two rows, 256 sequences, one epoch.
inline const std::string kSmall = "'hidden_sizes=[2,8]' n_train=256 n_val=128 epochs=1";

/// Every run folder of a sweep folder (16 hex digits), sorted.
inline std::vector<fs::path> run_folders(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().size() == 16) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

inline nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(slurp(p)); }

/// The lines of `text`.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0, nl;
  while ((nl = text.find('\n', start)) != std::string::npos) {
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

/// `attnlab ARGS` started in a process group of its own (as a shell's
/// foreground job is), stdout and stderr into files of `dir`; stopped by
/// the test by its pid or its group's id only.
struct Background {
  pid_t pid = -1;
  fs::path out, err;

  Background(const std::vector<std::string>& args, const ScratchDir& dir, const std::string& cwd)
      : out(dir.path / "bg_stdout.txt"), err(dir.path / "bg_stderr.txt") {
    std::vector<std::string> argv = {ATTNLAB_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    // Default actions for the signals the test sends (a test runner may ignore SIGINT).
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    if (posix_spawn(&pid, c[0], &fa, &attr, c.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
  }

  /// Waits for it; its exit code, or 128 + the signal that killed it.
  int wait() {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  ~Background() {
    if (pid > 0) {
      ::kill(-pid, SIGKILL);  // a failed test must not leave its sweep running
      wait();
    }
  }
};

}  // namespace attnlab::testing
