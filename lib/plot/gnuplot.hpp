// Drawing figures with gnuplot (Debian's gnuplot-nox): finding a gnuplot
// that has the svg and pngcairo terminals, and turning figures into files in
// a folder, each written whole or not at all (report::write_file_atomically).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace attnlab::plot {

/// No gnuplot on PATH, or one without the svg or pngcairo terminal. The
/// message names the Debian package to install (gnuplot-nox).
struct GnuplotMissing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The absolute path of a gnuplot on $PATH that can draw SVG and PNG (it
/// is asked to set both terminals: about 20 ms). Throws GnuplotMissing.
std::string find_gnuplot();

/// Checks, before any work, that `dir` may receive figures: it is a folder
/// (made when absent, with its missing parents), not a link, and writable.
/// Throws report::OutputRefused naming the folder and the reason.
void prepare_dir(const std::string& dir);

/// Checks every file draw() would write for `figures` in `dir` as -o checks
/// its path (never a link, a folder, a device or one of `inputs`), all of
/// them before the first is written. Throws report::OutputRefused.
void check_figure_files(const std::vector<Figure>& figures, const std::string& dir,
                        const std::vector<std::string>& inputs = {});

/// The same before a run, when only the experiments' kinds are known: every
/// entry of `dir` a figure of one of `kinds` could land on (KIND.*.dat, .gp,
/// .svg, .png) is checked now, so that a link or a folder in its place is
/// refused before any training rather than after it. A `dir` that is not
/// yet a folder has no such entry. Throws report::OutputRefused.
void check_figure_slots(const std::string& dir, const std::vector<std::string>& kinds,
                        const std::vector<std::string>& inputs = {});

/// Writes each figure into `dir` as NAME.dat and NAME.gp, then runs that
/// very script with `gnuplot` in a private scratch folder and writes the
/// NAME.svg and NAME.png it drew. Every file is checked as -o checks its
/// path (never a link, a device or one of `inputs`) and written atomically.
/// Returns what gnuplot printed
/// on stderr (warnings), one entry per figure that printed any, prefixed
/// with its name. Throws std::runtime_error when gnuplot fails on a figure,
/// report::OutputRefused when a file may not be written.
std::vector<std::string> draw(const std::vector<Figure>& figures, const std::string& dir, const std::string& gnuplot,
                              const std::vector<std::string>& inputs = {});

}  // namespace attnlab::plot
