// The subcommands of attnlab, one file each. Each `add_*` declares its
// options on the app (storing them in the struct it is given, which must
// outlive parsing); each `*_command` does the work after parsing and
// returns the exit code (cli::kOk, kFailure, kUsage), or throws
// spec::SpecError / CLI::ValidationError (exit 2) or std::exception (exit 1).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <thread>
#include <vector>

namespace attnlab::cli {

/// `attnlab run SPEC...` (run_command.cpp).
struct RunOptions {
  std::vector<std::string> files, sets;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string format = "text", output, check_file, plot_dir;
  std::string max_memory;    // --max-memory SIZE ("8G"), parsed by resources::parse_byte_size
  bool keep_going = false;   // --keep-going
  bool quiet = false;        // --quiet
  CLI::App* sub = nullptr;
};
CLI::App* add_run(CLI::App& app, RunOptions& o);
int run_command(const RunOptions& o);

/// `attnlab sweep SPEC [KEY=VALUES...]` and `attnlab run-one RUN_DIR` (sweep_command.cpp).
struct SweepOptions {
  std::string spec;
  std::vector<std::string> overrides, slurm_options;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string dir, format = "text", output, launcher = "local", plot_dir;
  bool plan = false, collect = false, fail_fast = false, times = false, dry_run = false, wait = false;
  CLI::App* sub = nullptr;
};
CLI::App* add_sweep(CLI::App& app, SweepOptions& o);
int sweep_command(const SweepOptions& o);

struct RunOneOptions {
  std::string dir;
};
CLI::App* add_run_one(CLI::App& app, RunOneOptions& o);
int run_one_command(const RunOneOptions& o);

/// `attnlab plot RESULT DIR` (plot_command.cpp).
struct PlotOptions {
  std::string result, dir;
};
CLI::App* add_plot(CLI::App& app, PlotOptions& o);
int plot_command(const PlotOptions& o);

/// `attnlab validate SPEC...`, `attnlab show SPEC`, `attnlab list [KIND...]` (spec_commands.cpp).
struct SpecOptions {
  std::vector<std::string> files, sets, kinds;
};
CLI::App* add_validate(CLI::App& app, SpecOptions& o);
CLI::App* add_show(CLI::App& app, SpecOptions& o);
CLI::App* add_list(CLI::App& app, SpecOptions& o);
int validate_command(const SpecOptions& o);
int show_command(const SpecOptions& o);
int list_command(const SpecOptions& o);

}  // namespace attnlab::cli
