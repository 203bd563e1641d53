// Running a sweep's pending runs on this machine: up to N `attnlab run-one
// RUN_DIR` processes at once, each single-threaded inside, reporting every
// run as it ends. The processes are the same command GNU parallel and Slurm
// run (commands_launcher.hpp, slurm_launcher.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sweep/progress.hpp"
#include "sweep/run_dir.hpp"

namespace attnlab::sweep {

/// One run to start.
struct Job {
  std::size_t position = 0;  // in the plan's runs
  fs::path dir;              // its run folder (prepared: spec.json written)
  std::string what;          // "run 3 (seed=3)", for messages
};

struct LocalOptions {
  int jobs = 1;             // runs at once
  bool fail_fast = false;   // start nothing more after the first failure (running ones finish)
  std::string attnlab;      // the binary to start (child_process.hpp: self_executable())
};

/// Runs `jobs` in order, up to opts.jobs at a time. `ended` is called for
/// each run that ended with its state read back from the folder (done,
/// failed, diverged; pending when it left no result). A caught SIGINT or
/// SIGTERM (interrupt.hpp; the caller installs the handlers) stops every
/// running run by pid and starts no more. Returns the signal caught, or 0.
int run_locally(const std::vector<Job>& jobs, const std::vector<nlohmann::json>& specs, const LocalOptions& opts,
                Progress& progress, const std::function<void(const Job&, const RunState&)>& ended);

}  // namespace attnlab::sweep
