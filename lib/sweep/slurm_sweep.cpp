#include "sweep/slurm_sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <utility>

#include "process/child_process.hpp"
#include "process/interrupt.hpp"
#include "report/atomic_file.hpp"
#include "sweep/slurm_launcher.hpp"

namespace attnlab::sweep {

namespace {

// Reports, while waiting for Slurm, each run that ended since the last look.
struct Watcher {
  const Plan& plan;
  const fs::path& dir;
  std::vector<std::size_t> positions;                // the runs submitted
  std::vector<std::pair<Status, std::string>> seen;  // status, and the result's end time (a rerun's is new)
  Progress& progress;

  bool look() {
    for (std::size_t k = 0; k < positions.size(); ++k) {
      const auto& run = plan.runs[positions[k]];
      const fs::path d = run_path(dir, run.hash);
      const RunState s = inspect(d, run.spec);
      const std::pair<Status, std::string> now{s.status, s.result.is_object() ? s.result.value("end", "") : ""};
      if (now == seen[k]) continue;
      const std::string what = describe_run(plan, run);
      if (s.status == Status::running) progress.started();
      if (s.status == Status::done) progress.finished_ok(what, s.result.value("seconds", 0.0));
      if (is_failure(s.status))
        progress.finished_failed(what, s.result.value("error", ""), (d / kStderrFile).string());
      seen[k] = now;
    }
    progress.tick();
    return true;
  }
};

}  // namespace

SlurmOutcome run_on_slurm(const Plan& plan, const std::vector<Job>& jobs, const std::vector<RunState>& states,
                          const Counts& before, const SlurmSweep& s) {
  const fs::path slurm_dir = s.dir / "slurm";
  fs::create_directories(slurm_dir);
  SlurmOptions so;
  so.max_parallel = s.max_parallel;
  so.options = s.options;
  so.attnlab = s.attnlab;
  so.job_name = "attnlab-" + fs::path(s.spec_file).stem().string();
  std::vector<fs::path> dirs;
  for (const auto& j : jobs) dirs.push_back(j.dir);
  const fs::path script = slurm_dir / "array.sbatch";
  report::write_file_atomically(
      script.string(),
      array_script(dirs, slurm_dir, so, fmt::format("attnlab sweep {}: {} pending runs", s.spec_file, jobs.size())));
  const std::string sbatch = process::find_program("sbatch");
  const auto commands = submit_commands(sbatch.empty() ? "sbatch" : sbatch, jobs.size(), script, so);
  if (s.dry_run) {
    SlurmOutcome out{0, ""};
    for (const auto& argv : commands) {
      std::string l;
      for (const auto& a : argv) l += (l.empty() ? "" : " ") + process::shell_quote(a);
      out.stdout_text += l + "\n";
    }
    std::cerr << "attnlab: sweep: wrote " << script.string() << " (" << jobs.size()
              << " runs); not submitted (--dry-run)\n";
    return out;
  }
  if (sbatch.empty()) throw std::runtime_error("sbatch is not on PATH; is this a Slurm login node?");
  const auto ids = submit(commands, slurm_dir);
  std::cerr << fmt::format("attnlab: sweep: submitted job array {} ({} runs{}); output in {}\n", fmt::join(ids, ", "),
                           jobs.size(), so.max_parallel ? fmt::format(", at most {} at once", so.max_parallel) : "",
                           slurm_dir.string());
  if (!s.wait) {
    if (s.plotting)
      std::cerr << "attnlab: sweep: no figures yet (without --wait); run this sweep again with --plot to draw them\n";
    std::cerr << "attnlab: sweep: run this sweep again once the jobs have ended (squeue --jobs="
              << fmt::format("{}", fmt::join(ids, ",")) << ") to collect the results\n";
    return {0, ""};
  }
  Progress progress(stderr, ::isatty(STDERR_FILENO), before);
  Watcher watcher{plan, s.dir, {}, {}, progress};
  for (const auto& j : jobs) {
    watcher.positions.push_back(j.position);
    const auto& r = states[j.position].result;
    watcher.seen.push_back({states[j.position].status, r.is_object() ? r.value("end", "") : ""});
  }
  wait_for_jobs(ids, slurm_dir, [&] { return watcher.look(); });
  watcher.look();
  progress.close();
  if (process::interrupted()) {
    std::cerr << "attnlab: sweep: stopped waiting; the jobs go on (scancel " << fmt::format("{}", fmt::join(ids, " "))
              << " stops them). Run this sweep again to collect.\n";
    return {128 + process::interrupted(), ""};
  }
  return {};
}

}  // namespace attnlab::sweep
