#include "sweep/run_dir.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "report/atomic_file.hpp"
#include "spec/spec_error.hpp"
#include "process/interrupt.hpp"

namespace attnlab::sweep {

using nlohmann::json;

const char* status_name(Status s) {
  switch (s) {
    case Status::done: return "done";
    case Status::failed: return "failed";
    case Status::diverged: return "diverged";
    case Status::running: return "running";
    case Status::pending: return "pending";
  }
  return "pending";
}

fs::path default_sweep_dir(const std::string& spec_file) { return fs::path("runs") / fs::path(spec_file).stem(); }

fs::path run_path(const fs::path& sweep_dir, const std::string& hash) { return sweep_dir / hash; }

namespace {

// The file parsed as JSON, or null when it is absent or unreadable.
json read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return nullptr;
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

}  // namespace

RunState inspect(const fs::path& run_dir, const json& planned_spec) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return {};
  const fs::path spec_path = run_dir / kSpecFile;
  if (fs::exists(spec_path, ec)) {
    const json stored = read_json(spec_path);
    if (stored != planned_spec)
      throw spec::SpecError(spec_path.string(), "",
                            "this run folder's spec differs from the run planned under its name; remove the "
                            "folder, or give the sweep another --dir");
  }
  RunState s;
  s.result = read_json(run_dir / kResultFile);
  const std::string status = s.result.is_object() && s.result.contains("status") && s.result["status"].is_string()
                                 ? s.result["status"].get<std::string>()
                                 : "";
  if (status == "ok") s.status = Status::done;
  else if (status == "failed") s.status = Status::failed;
  else if (status == "diverged") s.status = Status::diverged;
  else s.result = nullptr;  // no result, or one we cannot read: run it again
  if (s.status != Status::done && is_running(run_dir)) s.status = Status::running;
  return s;
}

std::vector<RunState> inspect_all(const Plan& plan, const fs::path& sweep_dir) {
  std::vector<RunState> states;
  states.reserve(plan.runs.size());
  for (const auto& r : plan.runs) states.push_back(inspect(run_path(sweep_dir, r.hash), r.spec));
  return states;
}

void prepare(const fs::path& run_dir, const json& spec) {
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec) throw std::runtime_error("cannot create " + run_dir.string() + ": " + ec.message());
  if (read_json(run_dir / kSpecFile) == spec) return;
  report::write_file_atomically((run_dir / kSpecFile).string(), spec.dump(2) + "\n");
}

RunLock::RunLock(const fs::path& run_dir) {
  const fs::path p = run_dir / kLockFile;
  fd_ = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + p.string() + ": " + std::strerror(errno));
  int r;
  do r = ::flock(fd_, LOCK_EX);
  while (r != 0 && errno == EINTR && !process::interrupted());
  if (r != 0 && errno == EINTR) return;  // asked to stop while waiting: not acquired
  if (r != 0) {
    const int e = errno;
    ::close(fd_);
    throw std::runtime_error("cannot lock " + p.string() + ": " + std::strerror(e));
  }
  acquired_ = true;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

bool is_running(const fs::path& run_dir) {
  const fs::path p = run_dir / kLockFile;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // A shared probe fails only while someone holds the exclusive lock; a
  // run-one that asks for it meanwhile waits a moment rather than failing.
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

}  // namespace attnlab::sweep
