// `attnlab run`: load and check every spec, run them, print (or write) their
// tables, and optionally compare them with a committed chapter (--check).
#include <unistd.h>

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

std::string read_expected(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw CLI::ValidationError("--check", "cannot read " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CLI::ValidationError("--check", "cannot read " + path + ": " + std::strerror(errno));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

CLI::App* add_run(CLI::App& app, RunOptions& o) {
  auto* run = app.add_subcommand("run", "run experiments and print their tables (stdout)");
  run->add_option("specs", o.files, "spec files (JSON)")->required();
  run->add_option("--set", o.sets, "override a spec key: KEY=VALUE (VALUE is JSON, or a plain string)");
  run->add_option("-j,--jobs", o.jobs, "independent trainings run at once (default: the number of cores)")
      ->check(CLI::Range(1, 256));
  run->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json"}));
  run->add_option("-o,--output", o.output, "write the output to FILE (complete or not at all) instead of stdout");
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
  std::string expected;
  if (!o.check_file.empty()) {
    if (o.format != "text") throw CLI::ValidationError("--check", "compares text output; drop --format json");
    expected = read_expected(o.check_file);
  }
  if (o.sub->count("--output")) {
    if (o.output.empty()) throw CLI::ValidationError("--output", "needs a file name");
    check_output_path(o.output);
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
  if (o.output.empty())
    write_stdout(text);
  else
    report::write_file_atomically(o.output, text);
  if (!o.check_file.empty()) {
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
