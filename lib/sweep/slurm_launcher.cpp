#include "sweep/slurm_launcher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "spec/spec_error.hpp"
#include "process/child_process.hpp"
#include "process/interrupt.hpp"

namespace attnlab::sweep {

std::string sbatch_option(const std::string& option) {
  if (option.find_first_of("\r\n") != std::string::npos)
    throw spec::SpecError("--slurm-option", "", "a line break in '" + option + "'; give one option per --slurm-option");
  std::string o = option;
  if (o.rfind("--", 0) != 0) o = (o.rfind('-', 0) == 0 ? "" : "--") + o;
  const std::string name = o.substr(0, o.find_first_of("= "));
  for (const char* own : {"--array", "--output", "--error", "--cpus-per-task", "-a", "-o", "-e", "-c"})
    if (name == own)
      throw spec::SpecError("--slurm-option", "",
                            "'" + option + "' is set by the launcher itself (one task per run, one CPU each, output "
                            "under the sweep's slurm/ folder); use -j to limit the tasks running at once");
  if (name == "-" || name == "--") throw spec::SpecError("--slurm-option", "", "'" + option + "' is not an sbatch option");
  return o;
}

std::string array_script(const std::vector<fs::path>& run_dirs, const fs::path& slurm_dir, const SlurmOptions& opts,
                         const std::string& comment) {
  const std::size_t first_array = std::min(run_dirs.size(), kMaxArrayTasks);
  const std::size_t limit = opts.max_parallel ? std::min(opts.max_parallel, first_array) : first_array;
  std::string s = "#!/bin/bash\n";
  s += "# " + comment + "\n";
  s += "# Written by attnlab " ATTNLAB_VERSION ". Task i runs runs[ATTNLAB_ARRAY_OFFSET + i] with\n";
  s += "# `attnlab run-one`, which writes that folder's result.json whole or not at all.\n";
  s += "#SBATCH --job-name=" + opts.job_name + "\n";
  s += fmt::format("#SBATCH --array=0-{}%{}\n", first_array - 1, limit);
  s += "#SBATCH --cpus-per-task=1\n";
  s += "#SBATCH --output=" + (fs::absolute(slurm_dir) / "%A_%a.out").string() + "\n";
  for (const auto& o : opts.options) s += "#SBATCH " + sbatch_option(o) + "\n";
  s += "set -euo pipefail\n";
  s += "runs=(\n";
  for (const auto& d : run_dirs) s += "  " + process::shell_quote(fs::absolute(d).lexically_normal().string()) + "\n";
  s += ")\n";
  s += "exec " + process::shell_quote(opts.attnlab) +
       " run-one \"${runs[$(( ${ATTNLAB_ARRAY_OFFSET:-0} + SLURM_ARRAY_TASK_ID ))]}\"\n";
  return s;
}

std::vector<std::vector<std::string>> submit_commands(const std::string& sbatch, std::size_t pending,
                                                      const fs::path& script, const SlurmOptions& opts) {
  std::vector<std::vector<std::string>> commands;
  for (std::size_t offset = 0; offset < pending; offset += kMaxArrayTasks) {
    std::vector<std::string> argv = {sbatch, "--parsable"};
    if (pending > kMaxArrayTasks) {
      const std::size_t n = std::min(kMaxArrayTasks, pending - offset);
      const std::size_t limit = opts.max_parallel ? std::min(opts.max_parallel, n) : n;
      argv.push_back(fmt::format("--array=0-{}%{}", n - 1, limit));
      argv.push_back(fmt::format("--export=ALL,ATTNLAB_ARRAY_OFFSET={}", offset));
    }
    argv.push_back(fs::absolute(script).string());
    commands.push_back(std::move(argv));
  }
  return commands;
}

std::vector<std::string> submit(const std::vector<std::vector<std::string>>& commands, const fs::path& slurm_dir) {
  std::vector<std::string> ids;
  for (const auto& argv : commands) {
    const process::Captured c = process::capture(argv, slurm_dir.string());
    std::string id = c.out.substr(0, c.out.find_first_of(";\n"));  // --parsable: "ID" or "ID;CLUSTER"
    const bool numeric = !id.empty() && std::all_of(id.begin(), id.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!c.exit.success() || !numeric) {
      std::string err = c.err;
      while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
      throw std::runtime_error(fmt::format("sbatch refused the job array ({}){}{}", c.exit.describe(),
                                           err.empty() ? "" : ": ", err) +
                               (ids.empty() ? "" : "; already submitted: " + fmt::format("{}", fmt::join(ids, ", "))));
    }
    ids.push_back(id);
  }
  return ids;
}

void wait_for_jobs(const std::vector<std::string>& job_ids, const fs::path& slurm_dir,
                   const std::function<bool()>& between) {
  const std::string squeue = process::find_program("squeue");
  if (squeue.empty()) throw std::runtime_error("squeue is not on PATH; cannot wait for the jobs");
  const std::string ids = fmt::format("{}", fmt::join(job_ids, ","));
  double pause = 1.0;
  int failures = 0;
  for (;;) {
    const process::Captured c = process::capture({squeue, "--noheader", "--jobs=" + ids, "--format=%i"}, slurm_dir.string());
    if (c.exit.success()) {
      failures = 0;
      if (c.out.find_first_not_of(" \n") == std::string::npos) return;  // none pending or running
    } else if (c.err.find("Invalid job id") != std::string::npos) {
      return;  // finished long enough ago for the controller to forget them
    } else if (++failures >= 10) {
      throw std::runtime_error("squeue keeps failing (" + c.err.substr(0, c.err.find('\n')) +
                               "); the jobs may still run: run the sweep again later to collect");
    }
    if (!between()) return;
    // Sleep in slices, so Ctrl-C stops the wait at once (the jobs go on).
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(pause);
    while (std::chrono::steady_clock::now() < until && !process::interrupted())
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (process::interrupted()) return;
    pause = std::min(30.0, pause * 1.5);
  }
}

}  // namespace attnlab::sweep
