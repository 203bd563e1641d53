// One figure as attnlab hands it to gnuplot: its name, the data it draws and
// the gnuplot commands that draw it. Written to a folder as NAME.dat and
// NAME.gp, it becomes NAME.svg and NAME.png (gnuplot.hpp), so a user can
// restyle the figure and redraw it without rerunning anything.
#pragma once

#include <string>
#include <vector>

namespace attnlab::plot {

struct Figure {
  std::string name;      // "<kind>.<figure>", e.g. "attention_map.weights": the files' stem
  std::string caption;   // one line: what the figure shows (the script's first comment)
  std::string source;    // what it was drawn from, as the result names it (its spec file)
  std::string data;      // NAME.dat: whitespace-separated columns, blocks split by two blank lines
  std::string body;      // gnuplot commands; the data file is `DATA` (replaced by 'NAME.dat')
  int width = 640, height = 480;  // pixels (PNG) and SVG user units
};

/// The figure's complete gnuplot script: a comment saying what it is and how
/// to redraw it, then `body` run once for the svg terminal (NAME.svg) and
/// once for pngcairo (NAME.png), both with DejaVu Sans on white.
std::string script(const Figure& f);

/// `text` as a gnuplot double-quoted string: "it\"s".
std::string quoted(const std::string& text);

/// A number as .dat files write it: %.6g, or NaN for one that is not finite
/// (gnuplot skips NaN points).
std::string number(double v);

/// `set xtics ("a" 0, "b" 1, ...)` for the labels at positions 0, 1, ...
std::string tics(const std::string& axis, const std::vector<std::string>& labels);

}  // namespace attnlab::plot
