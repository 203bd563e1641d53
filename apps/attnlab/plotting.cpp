#include "plotting.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "plot/figures.hpp"
#include "plot/gnuplot.hpp"
#include "report/atomic_file.hpp"

namespace attnlab::cli {

std::string check_gnuplot(const std::string& option) {
  try {
    return plot::find_gnuplot();
  } catch (const plot::GnuplotMissing& e) {
    throw CLI::ValidationError(option, std::string("drawing figures needs gnuplot: ") + e.what());
  }
}

void check_plot_dir(const std::string& option, const std::string& dir) {
  try {
    plot::prepare_dir(dir);
  } catch (const report::OutputRefused& e) {
    throw CLI::ValidationError(option, e.what());
  }
}

std::string check_plotting(const std::string& option, const std::string& dir, const std::vector<std::string>& kinds,
                           const std::vector<std::string>& inputs) {
  std::string gnuplot = check_gnuplot(option);
  check_plot_dir(option, dir);
  try {
    plot::check_figure_slots(dir, kinds, inputs);
  } catch (const report::OutputRefused& e) {
    throw CLI::ValidationError(option, e.what());
  }
  return gnuplot;
}

void check_figure_files(const std::string& option, const nlohmann::json& doc, const std::string& dir,
                        const std::vector<std::string>& inputs) {
  try {
    plot::check_figure_files(plot::figures_of_document(nlohmann::json::parse(doc.dump(2))), dir, inputs);
  } catch (const report::OutputRefused& e) {
    throw CLI::ValidationError(option, e.what());
  }
}

void plot_document(const nlohmann::json& doc, const std::string& dir, const std::string& gnuplot,
                   const std::vector<std::string>& inputs) {
  // Through the text a saved result holds: --plot and `attnlab plot` then draw the same numbers.
  const auto figures = plot::figures_of_document(nlohmann::json::parse(doc.dump(2)));
  if (figures.empty()) {
    std::cerr << "attnlab: plot: nothing to draw (these kinds have no figures)\n";
    return;
  }
  for (const auto& w : plot::draw(figures, dir, gnuplot, inputs)) std::cerr << "attnlab: plot: gnuplot: " << w;
  std::cerr << fmt::format("attnlab: plot: {} figure{} in {} (SVG and PNG, with the .gp script and .dat data of each)\n",
                           figures.size(), figures.size() == 1 ? "" : "s", dir);
}

}  // namespace attnlab::cli
