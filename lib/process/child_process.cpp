#include "process/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <climits>
#include <cstring>
#include <stdexcept>


namespace attnlab::process {

std::string ExitStatus::describe() const {
  if (signal) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit code " + std::to_string(code);
}

namespace {

ExitStatus from_wait_status(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) s.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) s.signal = WTERMSIG(status);
  return s;
}

// Between fork and exec only async-signal-safe calls: open, dup2, write, _exit.
[[noreturn]] void fail_in_child(int report_fd) {
  const int e = errno;
  [[maybe_unused]] auto n = ::write(report_fd, &e, sizeof e);
  ::_exit(127);
}

void redirect(int target, const std::string& path, int fd, int flags, int report_fd) {
  if (!path.empty()) {
    const int opened = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (opened < 0 || ::dup2(opened, target) < 0) fail_in_child(report_fd);
  } else if (fd >= 0) {
    if (::dup2(fd, target) < 0) fail_in_child(report_fd);
  }
}

}  // namespace

pid_t spawn(const std::vector<std::string>& argv, const Streams& streams) {
  if (argv.empty()) throw std::invalid_argument("spawn: no program");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int report[2];  // the child writes errno here when exec fails; closes on exec
  if (::pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  // Block SIGINT/SIGTERM across fork, so our handler never runs in the child
  // before it has restored the default action (an ignored signal stays ignored).
  sigset_t interrupts, before;
  sigemptyset(&interrupts);
  sigaddset(&interrupts, SIGINT);
  sigaddset(&interrupts, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &interrupts, &before);
  const pid_t pid = ::fork();
  if (pid != 0) ::sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    const int e = errno;
    ::close(report[0]);
    ::close(report[1]);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(e));
  }
  if (pid == 0) {
    ::close(report[0]);
    if (streams.die_with_parent) {
      if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) fail_in_child(report[1]);
      if (::getppid() != parent) ::_exit(143);  // the parent died before prctl took effect
    }
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction sa{};
      ::sigaction(sig, nullptr, &sa);
      if (sa.sa_handler != SIG_IGN) {
        sa.sa_handler = SIG_DFL;
        ::sigaction(sig, &sa, nullptr);
      }
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    redirect(STDIN_FILENO, "/dev/null", -1, O_RDONLY, report[1]);
    redirect(STDOUT_FILENO, streams.stdout_path, streams.stdout_fd, O_WRONLY | O_CREAT | O_TRUNC, report[1]);
    redirect(STDERR_FILENO, streams.stderr_path, streams.stderr_fd, O_WRONLY | O_CREAT | O_TRUNC, report[1]);
    ::execv(args[0], args.data());
    fail_in_child(report[1]);
  }
  ::close(report[1]);
  int child_errno = 0;
  ssize_t got;
  do got = ::read(report[0], &child_errno, sizeof child_errno);
  while (got < 0 && errno == EINTR);
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof child_errno)) {
    wait_exit(pid);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(child_errno));
  }
  return pid;
}

std::optional<ExitStatus> poll_exit(pid_t pid) {
  int status = 0;
  pid_t r;
  do r = ::waitpid(pid, &status, WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == 0) return std::nullopt;
  if (r < 0) throw std::runtime_error("waitpid " + std::to_string(pid) + ": " + std::strerror(errno));
  return from_wait_status(status);
}

ExitStatus wait_exit(pid_t pid) {
  int status = 0;
  pid_t r;
  do r = ::waitpid(pid, &status, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0) throw std::runtime_error("waitpid " + std::to_string(pid) + ": " + std::strerror(errno));
  return from_wait_status(status);
}

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error(std::string("cannot find the attnlab binary (/proc/self/exe): ") +
                                       std::strerror(errno));
  return std::string(buf, static_cast<std::size_t>(n));
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

Captured capture(const std::vector<std::string>& argv, const std::string& scratch_dir) {
  const std::string stem = scratch_dir + "/.capture." + std::to_string(::getpid());
  const std::string out_path = stem + ".out", err_path = stem + ".err";
  const pid_t pid = spawn(argv, {.stdout_path = out_path, .stderr_path = err_path});
  Captured c;
  c.exit = wait_exit(pid);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  };
  c.out = slurp(out_path);
  c.err = slurp(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return c;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace attnlab::process
