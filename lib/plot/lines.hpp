// Line figures: learning curves, a sweep's mean ± std against a parameter,
// and forward time against length on log–log axes.
#pragma once

#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace attnlab::plot {

/// One line: its points (x, y and, for error bars, the standard deviation).
struct Series {
  std::string title;
  std::vector<double> x, y, err;  // err empty: no error bars
};

struct Axes {
  std::string title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  std::vector<std::string> x_names;  // categorical x: tick i is x_names[i] (x = 0, 1, ...)
  std::string extra;                 // commands before `plot` (arrows, labels, ranges)
  std::string empty_note = "nothing to draw: no finite value";  // written on the frame when no series can be drawn
};

/// Lines with points, one data block per series (with "yerrorlines" when a
/// series has err). A series with no finite y keeps its block but is not
/// drawn (gnuplot refuses it); with none drawn the frame says so. Throws std::invalid_argument for series whose x, y and
/// err differ in length or that are empty.
Figure lines(std::string name, std::string caption, const Axes& axes, const std::vector<Series>& series);

/// Two line panels one above the other sharing the series' titles (loss on
/// top, accuracy below: a learning curve). Either list may be empty: its
/// panel is then an empty frame saying there is nothing to draw.
Figure two_panels(std::string name, std::string caption, const std::string& title, const Axes& top,
                  const std::vector<Series>& top_series, const Axes& bottom, const std::vector<Series>& bottom_series);

}  // namespace attnlab::plot
