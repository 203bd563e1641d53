// Starting, watching and stopping child processes, by pid only. Every run of
// a sweep is an `attnlab` process of its own, started with an exact argument
// vector (no shell, nothing added), so that local, GNU parallel and Slurm
// runs execute the same command.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace attnlab::process {

/// How a child ended: its exit code, or the signal that killed it.
struct ExitStatus {
  int code = -1;   // exit code when it exited, else -1
  int signal = 0;  // the killing signal, else 0
  bool success() const { return code == 0; }
  std::string describe() const;  // "exit code 1", "killed by signal 9 (Killed)"
};

/// Where a child's standard streams go. A path wins over a descriptor;
/// neither means "inherit". stdin is /dev/null unless given.
struct Streams {
  std::string stdout_path, stderr_path;  // opened for writing, truncated
  int stdout_fd = -1, stderr_fd = -1;
  bool die_with_parent = false;  // SIGTERM the child when its parent dies (Linux PR_SET_PDEATHSIG)
};

/// Starts argv[0] (an absolute path) with exactly `argv`. Throws
/// std::runtime_error naming the program and the reason when it cannot be
/// started (the reason travels back from the child through a pipe).
pid_t spawn(const std::vector<std::string>& argv, const Streams& streams = {});

/// The child's exit status when it has ended, without blocking.
std::optional<ExitStatus> poll_exit(pid_t pid);

/// Waits for the child to end (a signal caught meanwhile does not stop the wait).
ExitStatus wait_exit(pid_t pid);

/// The absolute path of the running program (/proc/self/exe): the attnlab
/// binary every launcher starts again for each run. Throws
/// std::runtime_error when /proc/self/exe is unreadable.
std::string self_executable();

/// The absolute path of `name` found on $PATH (as a shell would), or "".
std::string find_program(const std::string& name);

/// Runs argv to its end with stdout and stderr captured (through files in
/// `scratch_dir`, removed afterwards). Throws std::runtime_error when it
/// cannot start.
struct Captured {
  ExitStatus exit;
  std::string out, err;
};
Captured capture(const std::vector<std::string>& argv, const std::string& scratch_dir);

/// `text` quoted for a POSIX shell: 'it'\''s'.
std::string shell_quote(const std::string& text);

}  // namespace attnlab::process
