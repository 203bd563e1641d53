// What `run --plot`, `sweep --plot` and `attnlab plot` share: gnuplot and the
// figures' folder checked before any work, then every figure of a result
// document drawn into that folder.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnlab::cli {

/// Checks before any work that figures can be drawn into `dir`: a gnuplot
/// with the svg and pngcairo terminals is on PATH, and `dir` is (or can be
/// made) a writable folder. Returns gnuplot's path. Throws
/// CLI::ValidationError naming `option` (exit 2): a missing gnuplot names
/// the package gnuplot-nox; a link, folder, device or one of `inputs` where a
/// figure of one of `kinds` would be written (plot::check_figure_slots).
std::string check_plotting(const std::string& option, const std::string& dir, const std::vector<std::string>& kinds,
                           const std::vector<std::string>& inputs);

/// The two halves of check_plotting, for `attnlab plot`, which reads and
/// checks its result between them so that a refused result leaves no folder.
std::string check_gnuplot(const std::string& option);
void check_plot_dir(const std::string& option, const std::string& dir);

/// For `attnlab plot`, whose figures are known before it draws: every file
/// of `doc`'s figures checked (plot::check_figure_files). Throws
/// CLI::ValidationError naming `option`.
void check_figure_files(const std::string& option, const nlohmann::json& doc, const std::string& dir,
                        const std::vector<std::string>& inputs);

/// Draws every figure of `doc` (a `run` or `sweep` JSON document) into
/// `dir`, never over one of `inputs`, and says on stderr how many it drew.
/// The document is drawn as it reads back from its saved text, so a saved
/// result gives the same files.
void plot_document(const nlohmann::json& doc, const std::string& dir, const std::string& gnuplot,
                   const std::vector<std::string>& inputs);

}  // namespace attnlab::cli
