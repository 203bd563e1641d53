// `attnlab sweep SPEC [KEY=VALUES...]`: plan a grid of runs, run what is not
// done yet (here, through GNU parallel, or on Slurm), and print the
// aggregated tables. `attnlab run-one RUN_DIR`: the one command every
// launcher runs for one run. The machinery lives in lib/sweep/.
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <iostream>

#include "cli_common.hpp"
#include "plotting.hpp"
#include "commands.hpp"
#include "report/atomic_file.hpp"
#include "process/child_process.hpp"
#include "sweep/commands_launcher.hpp"
#include "sweep/formats.hpp"
#include "process/interrupt.hpp"
#include "sweep/local_launcher.hpp"
#include "sweep/override_grammar.hpp"
#include "sweep/plan.hpp"
#include "sweep/run_one.hpp"
#include "sweep/run_dir.hpp"
#include "sweep/slurm_launcher.hpp"
#include "sweep/slurm_sweep.hpp"

namespace attnlab::cli {

using namespace attnlab::sweep;

namespace {

// A run's error under its status, without the status said twice: a diverged
// run's error already begins "diverged: row ...".
std::string reason(Status status, const std::string& error) {
  const std::string said = std::string(status_name(status)) + ": ";
  return error.rfind(said, 0) == 0 ? error.substr(said.size()) : error;
}

Counts count(const std::vector<RunState>& states) {
  Counts c;
  for (const auto& s : states) {
    if (s.status == Status::done) ++c.done;
    else if (is_failure(s.status)) ++c.failed;
    else ++c.to_run;  // pending, or running in another process
  }
  return c;
}

// "4 runs: 3 done, 0 failed, 1 to run" (failed runs will run again).
std::string plan_summary(std::size_t n, const Counts& c) {
  return fmt::format("{} run{}: {} done, {} failed, {} to run", n, n == 1 ? "" : "s", c.done, c.failed, c.to_run);
}

std::string print_plan(const Plan& plan, const std::vector<RunState>& states) {
  const std::size_t width = std::to_string(plan.runs.empty() ? 0 : plan.runs.size() - 1).size();
  std::string out;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const Status s = states[i].status;
    const std::string status = s == Status::pending ? "to run" : status_name(s);
    std::string line = fmt::format("{:>{}}  {}  {:<8}  {}", plan.runs[i].index, width, plan.runs[i].hash, status,
                                   describe(plan, plan.runs[i], true));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += plan_summary(plan.runs.size(), count(states)) + "\n";
  return out;
}

void emit(const SweepOptions& o, const std::string& text) {
  if (o.output.empty()) write_stdout(text);
  else report::write_file_atomically(o.output, text);
}

// After running: names every run that failed or did not run; the exit code.
int report_outcome(const Plan& plan, const std::vector<RunState>& states, const fs::path& dir) {
  std::string failed, missing;
  std::size_t n_failed = 0, n_missing = 0;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    if (is_failure(states[i].status)) {
      ++n_failed;
      failed += fmt::format("\n  {} {}: {} ({})", describe_run(plan, plan.runs[i]), status_name(states[i].status),
                            reason(states[i].status, states[i].result.value("error", "")),
                            (run_path(dir, plan.runs[i].hash) / kStderrFile).string());
    } else if (states[i].status != Status::done) {
      ++n_missing;
      if (n_missing <= 10) missing += "\n  " + describe_run(plan, plan.runs[i]);
    }
  }
  if (n_failed)
    std::cerr << fmt::format("attnlab: sweep: {} of {} runs failed (run the sweep again to retry them):{}\n", n_failed,
                             plan.runs.size(), failed);
  if (n_missing)
    std::cerr << fmt::format("attnlab: sweep: {} of {} runs have no result yet:{}{}\n", n_missing, plan.runs.size(),
                             missing, n_missing > 10 ? "\n  ..." : "");
  return n_failed || n_missing ? kFailure : kOk;
}

int interrupted_exit(int sig, const Plan& plan, const std::vector<RunState>& states) {
  std::cerr << fmt::format("attnlab: sweep: stopped by {}; {}. Every result.json is whole; run the same command "
                           "again to finish.\n",
                           sig == SIGINT ? "Ctrl-C (SIGINT)" : "SIGTERM", plan_summary(plan.runs.size(), count(states)));
  return 128 + sig;
}

}  // namespace

CLI::App* add_sweep(CLI::App& app, SweepOptions& o) {
  auto* sweep = app.add_subcommand("sweep", "run a grid of overrides and seeds, resume it, aggregate mean ± std");
  sweep->add_option("spec", o.spec, "spec file (JSON); its optional \"sweep\" block adds axes")->required();
  sweep->add_option("overrides", o.overrides,
                    "KEY=VALUES, Hydra's grammar: seed=0,1,2  'seed=range(0,5)' (quoted for the shell)  lr=1e-3,3e-3  cell=lstm,gru  "
                    "'variants=[\"none\"],[\"learned\"]'; one value is a fixed override (epochs=1)");
  sweep->add_option("-j,--jobs", o.jobs,
                    "runs at once, each single-threaded (default: the number of cores); with --launcher slurm, "
                    "the array's limit %L")
      ->check(CLI::Range(1, 4096));
  sweep->add_option("--dir", o.dir, "the sweep's folder, one sub-folder per run (default: runs/<spec file stem>)");
  sweep->add_flag("--plan", o.plan, "run nothing: print each run (index, hash, status, overrides) and the counts");
  sweep->add_flag("--collect", o.collect, "run nothing: aggregate the runs that have finished");
  sweep->add_flag("--fail-fast", o.fail_fast, "start no further run after the first failure");
  sweep->add_option("--format", o.format, "aggregated output format")->check(CLI::IsMember(format_names()));
  sweep->add_option("-o,--output", o.output, "write the aggregated output to FILE (complete or not at all)");
  sweep->add_flag("--times", o.times, "aggregate wall-clock columns too (they differ run to run, so the output does)");
  sweep->add_option("--plot", o.plot_dir,
                    "also draw the aggregated figures into DIR (made if absent): mean ± std against the swept "
                    "parameter, as KIND.sweep_METRIC.svg and .png beside their .gp and .dat (needs gnuplot-nox)");
  sweep->add_option("--launcher", o.launcher,
                    "local: run here; commands: print one shell command per pending run (for GNU parallel); "
                    "slurm: submit a job array")
      ->check(CLI::IsMember({"local", "commands", "slurm"}));
  sweep->add_option("--slurm-option", o.slurm_options,
                    "an extra #SBATCH line, e.g. partition=debug or --time=2:00:00 (repeatable)");
  sweep->add_flag("--dry-run", o.dry_run, "with --launcher slurm: write the job script, print the sbatch command");
  sweep->add_flag("--wait", o.wait, "with --launcher slurm: wait for the array, then print the aggregated tables");
  sweep->footer(R"(A run is one `attnlab run-one RUN_DIR` process; its folder <dir>/<hash> (the hash of the
resolved spec) holds spec.json, result.json (whole or absent) and stderr.log. Running the same
sweep again skips every run whose result says ok and reruns the rest.

Examples:
  attnlab sweep experiments/bottleneck.json seed=0,1,2,3,4 -j 2
  attnlab sweep experiments/positions.json lr=1e-3,3e-3 'seed=range(0,3)' --format csv -o grid.csv
  attnlab sweep experiments/bottleneck.json 'seed=range(0,5)' --plan
  attnlab sweep experiments/bottleneck.json 'seed=range(0,5)' --launcher commands | parallel -j 8
  attnlab sweep experiments/bottleneck.json 'seed=range(0,5)' --launcher slurm --slurm-option partition=debug --wait

Exit codes: 0 every run ok, 1 a run failed or has no result, 2 bad usage or spec, 130/143 stopped by
SIGINT/SIGTERM (nothing half-written; run the same command again to finish).)");
  o.sub = sweep;
  return sweep;
}

int sweep_command(const SweepOptions& o) {
  const bool slurm = o.launcher == "slurm";
  if (!slurm && (o.dry_run || o.wait || !o.slurm_options.empty()))
    throw CLI::ValidationError(o.dry_run ? "--dry-run" : o.wait ? "--wait" : "--slurm-option",
                               "only with --launcher slurm");
  if (o.sub->count("--output")) {
    if (o.output.empty()) throw CLI::ValidationError("--output", "needs a file name");
    check_output_path(o.output, {o.spec});  // never the spec it sweeps
  }
  for (const auto& opt : o.slurm_options) sbatch_option(opt);  // refuse a bad one before any work
  const bool plotting = o.sub->count("--plot") > 0;

  const Plan plan = make_plan(o.spec, o.overrides);  // every combination checked; exit 2 on a refusal
  const fs::path dir = o.dir.empty() ? default_sweep_dir(o.spec) : fs::path(o.dir);
  if (std::error_code ec; fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw CLI::ValidationError("--dir", dir.string() + " exists and is not a folder");
  std::string gnuplot;
  if (plotting) {  // no gnuplot, or a link where a figure goes: refused before any run
    std::vector<std::string> inputs = {o.spec, (dir / kAggregateFile).string()};
    if (!o.output.empty()) inputs.push_back(o.output);
    gnuplot = check_plotting("--plot", o.plot_dir, {plan.kind}, inputs);
  }
  std::vector<RunState> states = inspect_all(plan, dir);
  if (o.plan) {
    write_stdout(print_plan(plan, states));
    return kOk;
  }

  std::vector<Job> jobs;
  std::vector<nlohmann::json> specs;
  for (const auto& r : plan.runs) specs.push_back(r.spec);
  for (std::size_t i = 0; i < plan.runs.size(); ++i)
    if (states[i].status != Status::done)
      jobs.push_back({i, run_path(dir, plan.runs[i].hash), describe_run(plan, plan.runs[i])});
  const Counts before = count(states);
  std::cerr << fmt::format("attnlab: sweep: {}: {} in {}\n", o.spec, plan_summary(plan.runs.size(), before),
                           dir.string());

  if (!o.collect && !jobs.empty()) {
    for (const auto& j : jobs) prepare(j.dir, plan.runs[j.position].spec);
    const std::string attnlab = process::self_executable();
    if (o.launcher == "commands") {
      write_stdout(command_lines(jobs, attnlab));
      if (plotting) std::cerr << "attnlab: sweep: no figures yet; run this sweep again with --plot once the runs have ended\n";
      std::cerr << fmt::format("attnlab: sweep: {} command{} printed; run them (e.g. | parallel -j 8), then run "
                               "this sweep again to collect\n",
                               jobs.size(), jobs.size() == 1 ? "" : "s");
      return kOk;
    }
    process::catch_interrupts();
    if (slurm) {
      const SlurmOutcome out = run_on_slurm(
          plan, jobs, states, before,
          {.spec_file = o.spec, .dir = dir, .max_parallel = o.sub->count("--jobs") ? static_cast<std::size_t>(o.jobs) : 0,
           .options = o.slurm_options, .attnlab = attnlab, .dry_run = o.dry_run, .wait = o.wait, .plotting = plotting});
      if (!out.stdout_text.empty()) write_stdout(out.stdout_text);
      if (out.exit) return *out.exit;
      states = inspect_all(plan, dir);
    } else {
      Progress progress(stderr, ::isatty(STDERR_FILENO), before);
      LocalOptions lo{o.jobs, o.fail_fast, attnlab};
      const int sig = run_locally(jobs, specs, lo, progress, [](const Job&, const RunState&) {});
      progress.close();
      states = inspect_all(plan, dir);
      if (sig) return interrupted_exit(sig, plan, states);
    }
  } else if (!o.collect) {
    std::cerr << "attnlab: sweep: every run is done; nothing to run\n";
  }

  emit(o, render(o.format, plan, states, o.times));
  // The aggregate beside the runs, so that `attnlab plot DIR` draws the sweep later.
  const std::string aggregate = render("json", plan, states, o.times);
  if (std::error_code ec; fs::is_directory(dir, ec)) report::write_file_atomically((dir / kAggregateFile).string(), aggregate);
  if (plotting) {
    std::vector<std::string> inputs = {o.spec, (dir / kAggregateFile).string()};
    if (!o.output.empty()) inputs.push_back(o.output);
    plot_document(nlohmann::json::parse(aggregate), o.plot_dir, gnuplot, inputs);
  }
  return report_outcome(plan, states, dir);
}

CLI::App* add_run_one(CLI::App& app, RunOneOptions& o) {
  auto* sub = app.add_subcommand(
      "run-one", "run one prepared sweep run: RUN_DIR/spec.json -> RUN_DIR/result.json (what every launcher runs)");
  sub->add_option("run_dir", o.dir, "a run folder made by `attnlab sweep` (<dir>/<hash>)")->required();
  sub->footer(R"(Runs `attnlab run RUN_DIR/spec.json --format json --jobs 1` as a child, its stderr into
RUN_DIR/stderr.log, and writes RUN_DIR/result.json whole or not at all. A run whose result says ok
is left untouched. Stopped by SIGINT/SIGTERM it records nothing.
Exit codes: 0 ok (or already done), 1 failed or diverged (recorded), 2 not a run folder,
128+N stopped by signal N.)");
  return sub;
}

int run_one_command(const RunOneOptions& o) { return run_one(o.dir, process::self_executable()); }

}  // namespace attnlab::cli
