// attnlab: runs the attention chapter's experiments from JSON specs and
// prints the course's tables. Tables go to stdout, everything else to
// stderr. Exit codes: 0 ok, 2 bad usage or spec, 1 failure while running.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>
#include <fstream>
#include <iterator>
#include <iostream>
#include <thread>

#include "experiments/registry.hpp"
#include "experiments/runner.hpp"
#include "report/atomic_file.hpp"
#include "report/check.hpp"
#include "spec/param.hpp"
#include "spec/spec_error.hpp"
#include "spec/validate.hpp"
#include "tensor/gemm.hpp"

namespace {

using namespace attnlab;
using nlohmann::json;

constexpr int kOk = 0, kFailure = 1, kUsage = 2;

// "--set key=value": the value is JSON when it parses as JSON, else a string,
// so `--set hidden_sizes=[2,4]` and `--set cell=lstm` both read naturally.
json parse_overrides(const std::vector<std::string>& sets) {
  json overrides = json::object();
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw CLI::ValidationError("--set", "expected KEY=VALUE, got '" + s + "'");
    const std::string key = s.substr(0, eq), text = s.substr(eq + 1);
    json value = json::parse(text, nullptr, false);
    overrides[key] = value.is_discarded() ? json(text) : value;
  }
  return overrides;
}

// Checks every file before any work and reports every refusal, not just
// the first; returns the loaded specs only when all of them are good.
std::optional<std::vector<experiments::LoadedSpec>> load_all(const std::vector<std::string>& files,
                                                             const json& overrides) {
  std::vector<experiments::LoadedSpec> specs;
  bool refused = false;
  for (const auto& f : files) {
    try {
      specs.push_back(experiments::load_spec(f, overrides));
    } catch (const spec::SpecError& e) {
      std::cerr << "attnlab: error: " << e.what() << "\n";
      refused = true;
    }
  }
  if (refused) return std::nullopt;
  return specs;
}

// A result file's folder must exist and be writable before hours of training.
void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::absolute(path).parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw CLI::ValidationError("--output", "cannot write " + path + ": the folder " + parent.string() +
                                               " does not exist");
  if (::access(parent.c_str(), W_OK) != 0)
    throw CLI::ValidationError("--output", "cannot write " + path + ": " + std::strerror(errno));
  if (fs::is_directory(path, ec)) throw CLI::ValidationError("--output", path + " is a folder");
}

std::string read_expected(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw CLI::ValidationError("--check", "cannot read " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CLI::ValidationError("--check", "cannot read " + path + ": " + std::strerror(errno));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Writes to stdout and reports a failed write (a full disk, a closed pipe):
// a table that did not arrive whole is a failure, not a success.
void write_stdout(const std::string& text) {
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  if (std::fflush(stdout) != 0 || !written)
    throw std::runtime_error(std::string("could not write the output to stdout: ") + std::strerror(errno));
}

// One line per kind; with kind names, each one's parameters as well.
void print_list(const std::vector<std::string>& kinds, std::ostream& out) {
  std::size_t width = 0;
  for (const auto& e : experiments::all_experiments()) width = std::max(width, e.name.size());
  for (const auto& e : experiments::all_experiments()) {
    const bool detailed = std::find(kinds.begin(), kinds.end(), e.name) != kinds.end();
    if (!kinds.empty() && !detailed) continue;
    out << fmt::format("{:<{}}  {}\n", e.name, width, e.summary);
    if (!detailed) continue;
    for (const auto& p : e.params)
      out << fmt::format("    {} = {}\n        {}; {}\n", p.name, p.default_value.dump(), p.doc,
                               spec::describe_allowed(p));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab: the attention chapter's experiments, reproduced against PyTorch 1.13"};
  app.set_version_flag("--version", std::string("attnlab ") + ATTNLAB_VERSION);
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("attnlab: error: ") + e.what() + "\nRun 'attnlab --help' for usage and examples.\n";
  });
  app.footer(R"(Examples:
  attnlab run experiments/positions.json          print the course's table
  attnlab run experiments/*.json                  every table of the chapter, in course order
  attnlab run experiments/*.json --check data/chapter.txt   fail (exit 1) when a table drifts
  attnlab run experiments/bottleneck.json --set 'hidden_sizes=[16,32]' --format json -o sweep.json
  attnlab show experiments/sqrt_d.json            the spec with every default filled in
  attnlab validate experiments/*.json             check specs without running them
  attnlab list                                    every experiment kind, one line each
  attnlab list positions                          one kind's parameters, defaults and ranges

Exit codes: 0 ok, 2 bad usage or spec, 1 failure while running.)");

  std::vector<std::string> files, sets;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string format = "text", output;

  auto* run = app.add_subcommand("run", "run experiments and print their tables (stdout)");
  run->add_option("specs", files, "spec files (JSON)")->required();
  run->add_option("--set", sets, "override a spec key: KEY=VALUE (VALUE is JSON, or a plain string)");
  run->add_option("-j,--jobs", jobs, "independent trainings run at once (default: the number of cores)")
      ->check(CLI::Range(1, 256));
  run->add_option("--format", format, "output format")->check(CLI::IsMember({"text", "json"}));
  run->add_option("-o,--output", output, "write the output to FILE (complete or not at all) instead of stdout");
  std::string check_file;
  run->add_option("--check", check_file,
                  "compare the printed tables with FILE (e.g. data/chapter.txt); exit 1 naming each table, row "
                  "and column that differs (times are compared by presence only)");

  auto* validate = app.add_subcommand("validate", "check specs without running them");
  validate->add_option("specs", files, "spec files (JSON)")->required();
  validate->add_option("--set", sets, "override a spec key: KEY=VALUE");

  auto* show = app.add_subcommand("show", "print a spec with every default filled in, as JSON");
  show->add_option("spec", files, "spec file (JSON)")->required()->expected(1);
  show->add_option("--set", sets, "override a spec key: KEY=VALUE");

  std::vector<std::string> kinds;
  auto* list = app.add_subcommand("list", "list every experiment kind; name kinds to see their parameters");
  list->add_option("kinds", kinds, "kinds whose parameters to show");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  }

  try {
    const json overrides = parse_overrides(sets);
    if (app.got_subcommand("list")) {
      std::vector<std::string> names;
      for (const auto& e : experiments::all_experiments()) names.push_back(e.name);
      for (const auto& k : kinds)
        if (!experiments::find_experiment(k)) {
          const std::string near = spec::closest(k, names);
          throw spec::SpecError("attnlab list", "",
                                "unknown experiment \"" + k + "\"" +
                                    (near.empty() ? "" : " (did you mean \"" + near + "\"?)") +
                                    "; run `attnlab list` for the kinds");
        }
      std::ostringstream list_text;
      print_list(kinds, list_text);
      write_stdout(list_text.str());
      return kOk;
    }
    auto loaded = load_all(files, overrides);  // refuse bad specs before any work
    if (!loaded) return kUsage;
    auto& specs = *loaded;
    if (app.got_subcommand("validate")) {
      for (const auto& s : specs) std::cerr << s.file << ": ok (" << s.experiment->name << ")\n";
      return kOk;
    }
    if (app.got_subcommand("show")) {
      write_stdout(specs[0].spec.dump(2) + "\n");
      return kOk;
    }
    std::string expected;
    if (!check_file.empty()) {
      if (format != "text") throw CLI::ValidationError("--check", "compares text output; drop --format json");
      expected = read_expected(check_file);
    }
    if (run->count("--output")) {
      if (output.empty()) throw CLI::ValidationError("--output", "needs a file name");
      check_writable(output);
    }
    tensor::set_blas_threads(1);
    std::mutex progress_mutex;  // rows finish on several threads; keep their lines whole
    experiments::RunContext ctx{jobs, [&](const std::string& line) {
                                  const std::string text = "attnlab: " + line + "\n";
                                  std::lock_guard<std::mutex> lock(progress_mutex);
                                  std::cerr << text << std::flush;
                                }};
    const auto results = experiments::run_all(std::move(specs), ctx);
    const std::string text = format == "json" ? experiments::render_json(results).dump(2) + "\n"
                                              : experiments::render_text(results);
    if (output.empty())
      write_stdout(text);
    else
      report::write_file_atomically(output, text);
    if (!check_file.empty()) {
      // Compared table by table under their headings, even for a single spec.
      const auto diffs = report::compare_tables(expected, experiments::render_text(results, true));
      if (!diffs.empty()) {
        std::cerr << "attnlab: " << report::describe(diffs, check_file);
        return kFailure;
      }
      std::cerr << "attnlab: check against " << check_file << ": every table matches\n";
    }
    return kOk;
  } catch (const spec::SpecError& e) {
    std::cerr << "attnlab: error: " << e.what() << "\n";
    return kUsage;
  } catch (const CLI::ValidationError& e) {
    std::cerr << "attnlab: error: " << e.what() << "\n";
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "attnlab: failed: " << e.what() << "\n";
    return kFailure;
  }
}
