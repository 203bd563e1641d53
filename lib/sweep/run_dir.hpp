// One folder per run, named by its config hash, and resume: what each
// folder says about its run. A run folder holds
//   spec.json     the canonical resolved spec (runnable: `attnlab run spec.json`)
//   result.json   written whole or not at all, once the run has ended (run_one.hpp)
//   stderr.log    everything the run printed on stderr
//   lock          held (flock) by the process running it
// and the sweep folder holds sweep.json, its last aggregate (kAggregateFile).
// Resume is the default: a run whose result.json says "ok" is done and never
// touched again; one that failed, diverged or has no result runs again.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sweep/plan.hpp"

namespace attnlab::sweep {

namespace fs = std::filesystem;

inline constexpr const char* kSpecFile = "spec.json";
inline constexpr const char* kResultFile = "result.json";
inline constexpr const char* kStderrFile = "stderr.log";
inline constexpr const char* kLockFile = "lock";
/// In the sweep folder itself: the last aggregate (`sweep --format json`),
/// rewritten whole each time the sweep aggregates, for `attnlab plot DIR`.
inline constexpr const char* kAggregateFile = "sweep.json";

enum class Status { done, failed, diverged, running, pending };

/// "done", "failed", "diverged", "running", "pending".
const char* status_name(Status s);

/// failed or diverged: a run that ended without a usable result.
inline bool is_failure(Status s) { return s == Status::failed || s == Status::diverged; }

/// A run's state and, once it has ended, its parsed result.json.
struct RunState {
  Status status = Status::pending;
  nlohmann::json result;  // null when there is no (readable) result
};

/// The default sweep folder for a spec: runs/<spec file stem>.
fs::path default_sweep_dir(const std::string& spec_file);

/// <sweep_dir>/<hash>.
fs::path run_path(const fs::path& sweep_dir, const std::string& hash);

/// What the folder says about the planned run. Throws spec::SpecError when
/// its spec.json differs from the planned spec (a hash collision, or a
/// folder edited by hand): resuming would mix two different runs.
RunState inspect(const fs::path& run_dir, const nlohmann::json& planned_spec);

/// Every planned run's state, in plan order.
std::vector<RunState> inspect_all(const Plan& plan, const fs::path& sweep_dir);

/// Creates the run folder and writes spec.json (atomically) unless it holds
/// the same spec already. Throws std::runtime_error when it cannot.
void prepare(const fs::path& run_dir, const nlohmann::json& spec);

/// The run's lock: an exclusive flock on <run_dir>/lock, released when this
/// object (or the process) goes. Blocks until no other process holds it,
/// or until an interrupt is caught (interrupt.hpp): then acquired() is false.
class RunLock {
 public:
  explicit RunLock(const fs::path& run_dir);
  ~RunLock();
  bool acquired() const { return acquired_; }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
  bool acquired_ = false;
};

/// Whether another process holds the run's lock now (a probe; takes nothing).
bool is_running(const fs::path& run_dir);

}  // namespace attnlab::sweep
