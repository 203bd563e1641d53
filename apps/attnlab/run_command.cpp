// `attnlab run`: load and check every spec, run them, print (or write) their
// tables, and optionally compare them with a committed chapter (--check).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>

#include "cli_common.hpp"
#include "commands.hpp"
#include "experiments/runner.hpp"
#include "report/atomic_file.hpp"
#include "report/check.hpp"
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
  tensor::set_blas_threads(1);
  std::mutex progress_mutex;  // rows finish on several threads; keep their lines whole
  experiments::RunContext ctx{o.jobs, [&](const std::string& line) {
                                const std::string text = "attnlab: " + line + "\n";
                                std::lock_guard<std::mutex> lock(progress_mutex);
                                std::cerr << text << std::flush;
                              }};
  const auto results = experiments::run_all(std::move(specs), ctx);
  const std::string text = o.format == "json" ? experiments::render_json(results).dump(2) + "\n"
                                              : experiments::render_text(results);
  if (!writing)
    write_stdout(text);
  else
    report::write_file_atomically(o.output, text);
  if (checking) {
    // Compared table by table under their headings, even for a single spec.
    const auto diffs = report::compare_tables(expected, experiments::render_text(results, true));
    if (!diffs.empty()) {
      std::cerr << "attnlab: " << report::describe(diffs, o.check_file);
      return kFailure;
    }
    std::cerr << "attnlab: check against " << o.check_file << ": every table matches\n";
  }
  return kOk;
}

}  // namespace attnlab::cli
