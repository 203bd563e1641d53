#include "sweep/local_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "process/child_process.hpp"
#include "process/interrupt.hpp"

namespace attnlab::sweep {

namespace {

struct Running {
  const Job* job;
  pid_t pid;
  int fd;              // read end of the child's stderr pipe
  std::string partial; // an unfinished line from it
  std::chrono::steady_clock::time_point start;
};

// Relays the child's complete stderr lines (run-one prints only what its
// result.json cannot hold, e.g. a folder it cannot write).
void relay(Running& r, Progress& progress, bool to_end) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(r.fd, buf, sizeof buf);
    if (n > 0) {
      r.partial.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EOF, or EAGAIN: nothing more for now
  }
  std::size_t nl;
  while ((nl = r.partial.find('\n')) != std::string::npos) {
    progress.line("attnlab: sweep: " + r.job->what + ": " + r.partial.substr(0, nl));
    r.partial.erase(0, nl + 1);
  }
  if (to_end && !r.partial.empty()) {
    progress.line("attnlab: sweep: " + r.job->what + ": " + r.partial);
    r.partial.clear();
  }
}

}  // namespace

int run_locally(const std::vector<Job>& jobs, const std::vector<nlohmann::json>& specs, const LocalOptions& opts,
                Progress& progress, const std::function<void(const Job&, const RunState&)>& ended) {
  std::vector<Running> running;
  std::size_t next = 0;
  bool stop = false, stopped_children = false;
  while ((!stop && next < jobs.size()) || !running.empty()) {
    if (process::interrupted() && !stopped_children) {
      // Ctrl-C reached the children already; a SIGTERM sent to us alone did not.
      for (const auto& r : running) ::kill(r.pid, SIGTERM);
      stopped_children = true;
      stop = true;
    }
    while (!stop && next < jobs.size() && running.size() < static_cast<std::size_t>(opts.jobs)) {
      const Job& job = jobs[next++];
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
      ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
      pid_t pid;
      try {
        pid = process::spawn({opts.attnlab, "run-one", job.dir.string()}, {.stdout_path = "/dev/null", .stderr_fd = fds[1]});
      } catch (...) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw;
      }
      ::close(fds[1]);
      running.push_back({&job, pid, fds[0], "", std::chrono::steady_clock::now()});
      progress.started();
    }
    if (running.empty()) break;

    std::vector<pollfd> polled;
    for (const auto& r : running) polled.push_back({r.fd, POLLIN, 0});
    ::poll(polled.data(), polled.size(), 200);  // EINTR is fine: the loop looks at interrupted()
    for (std::size_t i = 0; i < running.size(); ++i)
      if (polled[i].revents) relay(running[i], progress, false);

    for (std::size_t i = 0; i < running.size();) {
      Running& r = running[i];
      const auto status = process::poll_exit(r.pid);
      if (!status) {
        ++i;
        continue;
      }
      relay(r, progress, true);
      ::close(r.fd);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
      const RunState state = inspect(r.job->dir, specs[r.job->position]);
      if (state.status == Status::done) {
        progress.finished_ok(r.job->what, seconds);
      } else if (is_failure(state.status)) {
        progress.finished_failed(r.job->what, state.result.value("error", "(no error given)"),
                                 (r.job->dir / kStderrFile).string());
        if (opts.fail_fast) stop = true;
      } else if (process::interrupted()) {
        progress.gave_up(r.job->what);
      } else {
        progress.finished_failed(r.job->what, "ended without a result (" + status->describe() + ")",
                                 (r.job->dir / kStderrFile).string());
        if (opts.fail_fast) stop = true;
      }
      ended(*r.job, state);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
    progress.tick();
  }
  return process::interrupted();
}

}  // namespace attnlab::sweep
