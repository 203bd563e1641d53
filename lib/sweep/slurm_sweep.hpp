// A sweep's pending runs sent to Slurm (`attnlab sweep --launcher slurm`):
// the job array written and submitted (slurm_launcher.hpp), then, with
// --wait, each run reported as it ends until the array is gone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep/local_launcher.hpp"
#include "sweep/plan.hpp"
#include "sweep/progress.hpp"
#include "sweep/run_dir.hpp"

namespace attnlab::sweep {

struct SlurmSweep {
  std::string spec_file;              // for the job name and the script's comment
  fs::path dir;                       // the sweep's folder; the script and logs go to dir/slurm
  std::size_t max_parallel = 0;       // the array's %L; 0: no limit
  std::vector<std::string> options;   // extra #SBATCH lines, checked by sbatch_option
  std::string attnlab;                // the binary every task runs (absolute)
  bool dry_run = false;               // write the script, print the sbatch commands, submit nothing
  bool wait = false;                  // wait for the array and report each run as it ends
  bool plotting = false;              // --plot was given: say when no figure can be drawn yet
};

/// What became of a Slurm sweep. `exit` is set when the sweep command is to
/// return it now (a dry run, a submission without --wait, an interrupted
/// wait); unset when the array ended and the results are to be aggregated.
/// `stdout_text`: the sbatch command lines of a dry run.
struct SlurmOutcome {
  std::optional<int> exit;
  std::string stdout_text;
};

/// Submits `jobs` (prepared run folders) as a job array and, with `wait`,
/// waits for it, reporting on stderr. Throws std::runtime_error when sbatch
/// is missing or refuses the array, or squeue keeps failing.
SlurmOutcome run_on_slurm(const Plan& plan, const std::vector<Job>& jobs, const std::vector<RunState>& states,
                          const Counts& before, const SlurmSweep& s);

}  // namespace attnlab::sweep
