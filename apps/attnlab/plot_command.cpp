// `attnlab plot RESULT DIR`: the figures of a saved result, without training
// anything: the JSON of `run --format json` or `sweep --format json`, or a
// sweep's folder (its sweep.json).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_common.hpp"
#include "commands.hpp"
#include "plot/figures.hpp"
#include "plotting.hpp"
#include "spec/spec_error.hpp"
#include "sweep/run_dir.hpp"

namespace attnlab::cli {

namespace fs = std::filesystem;

CLI::App* add_plot(CLI::App& app, PlotOptions& o) {
  auto* sub = app.add_subcommand("plot", "draw the figures of a saved result or sweep folder (SVG and PNG, with gnuplot)");
  sub->add_option("result", o.result,
                  "a saved `attnlab run ... --format json` or `attnlab sweep ... --format json` file, or a sweep folder")
      ->required();
  sub->add_option("dir", o.dir, "the folder for the figures (made if absent)")->required();
  sub->footer(R"(Each figure is KIND.FIGURE.svg and .png, beside KIND.FIGURE.gp (the gnuplot script that
drew it) and KIND.FIGURE.dat (its data): edit the script and run `gnuplot KIND.FIGURE.gp` in DIR to
restyle it. The files are those `--plot DIR` writes on the run itself.

Examples:
  attnlab run experiments/attention_map.json --format json -o map.json
  attnlab plot map.json figures/
  attnlab sweep experiments/bottleneck.json 'seed=range(0,5)'
  attnlab plot runs/bottleneck figures/

Exit codes: 0 ok, 2 bad usage, no gnuplot, or not a result, 1 failure while drawing.)");
  return sub;
}

int plot_command(const PlotOptions& o) {
  const std::string gnuplot = check_gnuplot("plot");  // before reading anything
  std::error_code ec;
  std::string file = o.result;
  if (fs::is_directory(file, ec)) {
    file = (fs::path(o.result) / sweep::kAggregateFile).string();
    if (!fs::is_regular_file(file, ec))
      throw CLI::ValidationError("result", o.result + " is a folder without " + sweep::kAggregateFile +
                                               ": not a sweep folder, or one never aggregated (run the same "
                                               "`attnlab sweep ... --collect` to write it)");
  } else if (!fs::is_regular_file(file, ec)) {
    throw CLI::ValidationError("result", "cannot read " + file + ": " + (fs::exists(file, ec) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(file, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw CLI::ValidationError("result", file + " is not JSON: " + e.what());
  }
  try {
    (void)plot::figures_of_document(doc);  // a malformed result is refused before anything is written
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("result", file + ": " + e.what());
  }
  check_plot_dir("plot", o.dir);  // made only for a result that will be drawn
  check_figure_files("plot", doc, o.dir, {file});
  plot_document(doc, o.dir, gnuplot, {file});
  return kOk;
}

}  // namespace attnlab::cli
