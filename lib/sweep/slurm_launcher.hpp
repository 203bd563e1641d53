// `--launcher slurm`: the pending runs as one Slurm job array, one task per
// run (`attnlab run-one RUN_DIR`, --cpus-per-task=1), at most L at once
// (--array=0-(P-1)%L). The script is <dir>/slurm/array.sbatch, the tasks'
// output <dir>/slurm/<job>_<task>.out; the run folders must be on a file
// system the nodes share, as must the attnlab binary's path.
// Slurm refuses arrays longer than its MaxArraySize (1001 by default), so
// more runs than kMaxArrayTasks are submitted as several arrays of the same
// script, each told its first run by ATTNLAB_ARRAY_OFFSET.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sweep/run_dir.hpp"

namespace attnlab::sweep {

inline constexpr std::size_t kMaxArrayTasks = 1000;

struct SlurmOptions {
  std::size_t max_parallel = 0;      // L in --array=...%L; 0: as many as there are runs
  std::vector<std::string> options;  // extra #SBATCH lines: "partition=debug", "--time=2:00:00"
  std::string attnlab;               // the binary every task runs (absolute)
  std::string job_name = "attnlab";
};

/// "--partition=debug" from "partition=debug" or "--partition=debug".
/// Throws spec::SpecError for a line break, and for the options the
/// launcher sets itself (--array, --output, --error, --cpus-per-task).
std::string sbatch_option(const std::string& option);

/// The job array script for the given run folders (absolute paths).
std::string array_script(const std::vector<fs::path>& run_dirs, const fs::path& slurm_dir, const SlurmOptions& opts,
                         const std::string& comment);

/// The sbatch command lines (argv) that submit `script` for `pending` runs:
/// one, or one per kMaxArrayTasks runs.
std::vector<std::vector<std::string>> submit_commands(const std::string& sbatch, std::size_t pending,
                                                      const fs::path& script, const SlurmOptions& opts);

/// Runs the commands (sbatch --parsable ...); returns the job ids. Throws
/// std::runtime_error with sbatch's own message when a submission fails.
std::vector<std::string> submit(const std::vector<std::vector<std::string>>& commands, const fs::path& slurm_dir);

/// Waits until no task of `job_ids` is pending or running, asking squeue
/// every few seconds (1 s, growing to 30 s) and calling `between` after each
/// look; returns early when `between` returns false. Throws
/// std::runtime_error when squeue keeps failing (the controller is gone).
void wait_for_jobs(const std::vector<std::string>& job_ids, const fs::path& slurm_dir,
                   const std::function<bool()>& between);

}  // namespace attnlab::sweep
