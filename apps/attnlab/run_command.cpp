// `attnlab run`: load and check every spec, run them, print (or write) their
// tables, and optionally compare them with a committed chapter (--check).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli_common.hpp"
#include "commands.hpp"
#include "experiments/memory_check.hpp"
#include "experiments/runner.hpp"
#include "plotting.hpp"
#include "report/atomic_file.hpp"
#include "report/check.hpp"
#include "report/progress.hpp"
#include "resources/byte_size.hpp"
#include "resources/memory_limits.hpp"
#include "spec/spec_error.hpp"
#include "tensor/gemm.hpp"

namespace attnlab::cli {

namespace {

// Read before any work, so that a bad file is refused in a second, not after
// hours of training.
std::string read_expected(const std::string& path) {
  if (path.empty()) throw CLI::ValidationError("--check", "needs a file name (the expected output, e.g. data/chapter.txt)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw CLI::ValidationError("--check", "cannot read " + path + ": " +
                                              (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CLI::ValidationError("--check", "cannot read " + path + ": " + std::strerror(errno));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string problem = report::expected_text_problem(text);
  if (!problem.empty()) throw CLI::ValidationError("--check", path + ": " + problem);
  return text;
}

// Every spec whose estimate does not fit the limits is named on stderr, not
// just the first; returns the jobs to run with (fewer than asked when only
// fewer fit: the output does not depend on them), 0 when a spec does not fit.
int jobs_within_memory(const std::vector<experiments::LoadedSpec>& specs, const RunOptions& o) {
  double max_memory = 0;
  if (!o.max_memory.empty()) {
    const auto bytes = resources::parse_byte_size(o.max_memory);
    if (!bytes || *bytes <= 0)
      throw CLI::ValidationError("--max-memory", "expected a size such as 8G, 512M or 1000000 (bytes), got '" +
                                                     o.max_memory + "'");
    max_memory = *bytes;
  }
  const auto limits = resources::memory_limits(max_memory);
  int jobs = o.jobs;
  bool fits = true;
  for (const auto& s : specs) {
    if (const int j = experiments::jobs_that_fit(s, jobs, limits)) {
      jobs = j;
      continue;
    }
    try {
      experiments::check_memory(s, 1, limits);
    } catch (const spec::SpecError& e) {
      std::cerr << "attnlab: error: " << e.what() << "\n";
    }
    fits = false;
  }
  if (!fits) return 0;
  if (jobs < o.jobs && !o.quiet)
    std::cerr << "attnlab: running at most " << jobs << " row(s) at once (--jobs " << jobs
              << "): the memory limits leave no room for more (each adds its own buffers, and OpenBLAS maps "
              << resources::format_bytes(experiments::kBlasBufferBytes) << " of address space for it)\n";
  return jobs;
}

// Progress notes, warnings and each training row's steps, all through one display.
experiments::RunContext run_context(report::ProgressDisplay& display, int jobs) {
  experiments::RunContext ctx;
  ctx.jobs = jobs;
  ctx.progress = [&display](const std::string& line) { display.note(line); };
  ctx.warn = [&display](const std::string& line) { display.warn(line); };
  ctx.row_progress = [&display](const std::string& row) {
    const int id = display.add_row(row);
    return [&display, id](const training::FitProgress& p) {
      display.update(id, {p.epoch, p.epochs, p.step, p.steps, p.loss, p.done});
    };
  };
  return ctx;
}

}  // namespace

CLI::App* add_run(CLI::App& app, RunOptions& o) {
  auto* run = app.add_subcommand("run", "run experiments and print their tables (stdout)");
  run->add_option("specs", o.files, "spec files (JSON)")->required();
  run->add_option("--set", o.sets, "override a spec key: KEY=VALUE (VALUE is JSON, or a plain string)");
  run->add_option("-j,--jobs", o.jobs, "independent trainings run at once (default: the number of cores)")
      ->check(CLI::Range(1, 256));
  run->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}));
  run->add_option("-o,--output", o.output, "write the output to FILE instead of stdout: complete or not at all, and only ever a regular file that is none of the run's inputs");
  run->add_option("--check", o.check_file,
                  "compare the printed tables with FILE (e.g. data/chapter.txt); exit 1 naming each table, row "
                  "and column that differs (times are compared by presence only)");
  run->add_option("--max-memory", o.max_memory,
                  "refuse (exit 2) a spec whose estimated peak memory is above SIZE (8G, 512M, bytes), besides "
                  "the machine's own limits (80% of MemAvailable, ulimit -v/-d, the cgroup's limit)")
      ->option_text("SIZE");
  run->add_flag("--keep-going", o.keep_going,
                "when a spec fails while running, report it at once and run the others (exit 1)");
  run->add_flag("-q,--quiet", o.quiet, "no progress on stderr (warnings and errors still show)");
  run->add_option("--plot", o.plot_dir,
                  "also draw every figure the experiments have into DIR (made if absent): KIND.FIGURE.svg and .png, "
                  "beside the .gp script and .dat data that drew them (needs gnuplot-nox)");
  o.sub = run;
  return run;
}

int run_command(const RunOptions& o) {
  const auto overrides = parse_overrides(o.sets);
  auto loaded = load_all(o.files, overrides);  // refuse bad specs before any work
  if (!loaded) return kUsage;
  auto& specs = *loaded;
  const bool checking = o.sub->count("--check") > 0, writing = o.sub->count("--output") > 0;
  std::string expected;
  if (checking) {
    if (o.format != "text") throw CLI::ValidationError("--check", "compares text output; drop --format json");
    expected = read_expected(o.check_file);
  }
  if (writing) {
    if (o.output.empty()) throw CLI::ValidationError("--output", "needs a file name");
    std::vector<std::string> inputs = o.files;  // -o must never replace what the run reads
    if (checking) inputs.push_back(o.check_file);
    check_output_path(o.output, inputs);
  }
  const bool plotting = o.sub->count("--plot") > 0;
  std::string gnuplot;
  if (plotting) {  // no gnuplot, or a link where a figure goes: refused before any training
    std::vector<std::string> kinds, inputs = o.files;
    for (const auto& s : specs) kinds.push_back(s.experiment->name);
    if (checking) inputs.push_back(o.check_file);
    if (writing) inputs.push_back(o.output);
    gnuplot = check_plotting("--plot", o.plot_dir, kinds, inputs);
  }
  const int jobs = jobs_within_memory(specs, o);  // before any work, as a bad spec is refused
  if (jobs == 0) return kUsage;
  tensor::set_blas_threads(1);
  report::ProgressDisplay display(stderr, report::ProgressDisplay::mode_for_stderr(o.quiet));
  const bool several = specs.size() > 1;
  std::vector<experiments::Result> results;
  try {
    experiments::RunContext ctx = run_context(display, jobs);
    // Learning curves only where they are shown: the JSON and the figures;
    // a text table prints each row's last accuracy, as the course does.
    ctx.epoch_curves = o.format == "json" || plotting;
    results = experiments::run_all(std::move(specs), ctx, {.keep_going = o.keep_going});
  } catch (const std::runtime_error& e) {
    if (!several || o.keep_going) throw;
    throw std::runtime_error(std::string(e.what()) + " (--keep-going runs the other specs all the same)");
  }
  const std::string text = o.format == "json" ? experiments::render_json(results, jobs).dump(2) + "\n"
                                              : experiments::render_text(results);
  if (!writing)
    write_stdout(text);
  else
    report::write_file_atomically(o.output, text);
  if (plotting) {
    std::vector<std::string> inputs = o.files;
    if (checking) inputs.push_back(o.check_file);
    if (writing) inputs.push_back(o.output);
    plot_document(experiments::render_json(results, jobs), o.plot_dir, gnuplot, inputs);
  }
  if (checking) {
    // Compared table by table under their headings, even for a single spec.
    const auto diffs = report::compare_tables(expected, experiments::render_text(results, true));
    if (!diffs.empty()) {
      std::cerr << "attnlab: " << report::describe(diffs, o.check_file);
      return kFailure;
    }
    std::cerr << "attnlab: check against " << o.check_file << ": every table matches\n";
  }
  return experiments::all_ok(results) ? kOk : kFailure;
}

}  // namespace attnlab::cli
