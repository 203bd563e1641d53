#include "plot/lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace attnlab::plot {

namespace {

std::string blocks(const std::vector<Series>& series) {
  std::string out;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    if (s.x.empty() || s.x.size() != s.y.size() || (!s.err.empty() && s.err.size() != s.x.size()))
      throw std::invalid_argument("series '" + s.title + "': x, y and err differ in length or are empty");
    out += k ? "\n\n" : "";
    out += "# " + s.title + "\n";
    for (std::size_t i = 0; i < s.x.size(); ++i)
      out += number(s.x[i]) + " " + number(s.y[i]) + (s.err.empty() ? "" : " " + number(s.err[i])) + "\n";
  }
  return out;
}

// `first` is the index of the series' first block in the data file.
std::string panel(const Axes& a, const std::vector<Series>& series, std::size_t first, const std::string& key) {
  std::string s = "unset label\nunset arrow\nset title " + quoted(a.title) + "\n";  // nothing from the panel above
  s += "set xlabel " + quoted(a.xlabel) + "\nset ylabel " + quoted(a.ylabel) + "\n";
  s += a.log_x ? "set logscale x\n" : "unset logscale x\n";
  // "%g" on a log axis: gnuplot's default wrote 10.000000 and 0.000010
  s += a.log_y ? "set logscale y\nset format y \"%g\"\n" : "unset logscale y\nset format y \"% h\"\n";
  if (!a.x_names.empty()) s += tics("x", a.x_names) + fmt::format("set xrange [-0.5:{}]\n", a.x_names.size() - 0.5);
  // 5% above and below the points: autoscaling ends the axis at the extreme point, whose marker the frame then cuts.
  s += a.log_y ? "set offsets 0, 0, 0, 0\n" : "set offsets 0, 0, graph 0.05, graph 0.05\n";
  s += "set grid back lc rgb \"#dddddd\"\n";
  s += "set key " + key + "\n";
  s += a.extra;
  // gnuplot refuses ("all points y value undefined") a series with no finite
  // point; such a series keeps its data block but is not drawn.
  std::string plots;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& y = series[k].y;
    if (std::none_of(y.begin(), y.end(), [](double v) { return std::isfinite(v); })) continue;
    const bool bars = !series[k].err.empty();
    plots += fmt::format("{}DATA index {} using 1:2{} with {} lw 2 pt 7 ps 0.8 title {}", plots.empty() ? "" : ", \\\n     ",
                         first + k, bars ? ":3" : "", bars ? "yerrorlines" : "linespoints", quoted(series[k].title));
  }
  if (plots.empty())  // an empty frame that says why (its x range comes from `extra`), without an empty key box
    return s + "unset key\nset yrange [0:1]\nset label " + quoted(a.empty_note) + " at graph 0.5, graph 0.5 center\n" +
           "plot NaN notitle\n";
  return s + "plot " + plots + "\n";
}

}  // namespace

Figure lines(std::string name, std::string caption, const Axes& axes, const std::vector<Series>& series) {
  if (series.empty()) throw std::invalid_argument("figure '" + name + "': no series");
  Figure f{.name = std::move(name), .caption = std::move(caption)};
  f.data = blocks(series);
  f.width = 800;
  f.height = 500;
  // The key above the plot, centred: beside it a sweep's long line titles squeeze the plot, below it they hit the
  // axis name, and "outside top" put it above the title. So the title is a label at the top of the canvas, the key
  // stands on the plot's top edge (two titles a row), and the top margin holds both.
  Axes a = axes;
  a.title.clear();
  a.extra = fmt::format("set label 1001 {} at screen 0.5, screen 0.965 center\nset tmargin {}\n", quoted(axes.title),
                        4 + (series.size() + 1) / 2) + axes.extra;
  f.body = "set colorsequence podo\n" + panel(a, series, 0, "at graph 0.5, graph 1.03 center bottom horizontal maxcols 2 box Left reverse");
  return f;
}

Figure two_panels(std::string name, std::string caption, const std::string& title, const Axes& top,
                  const std::vector<Series>& top_series, const Axes& bottom, const std::vector<Series>& bottom_series) {
  Figure f{.name = std::move(name), .caption = std::move(caption)};
  // No series at all (every row diverged in its first epoch): two empty
  // frames under the title that says so, and a data file that says it too.
  f.data = top_series.empty() && bottom_series.empty() ? "# no series: nothing completed an epoch\n"
                                                       : blocks(top_series) + "\n\n" + blocks(bottom_series);
  f.width = 800;
  f.height = 760;
  f.body = "set colorsequence podo\nset multiplot layout 2,1 title " + quoted(title) + "\n";
  // Left-aligned titles with the sample after them: right-aligned ones left a wide gap before a long title.
  f.body += panel(top, top_series, 0, "outside right top box Left reverse") +
            panel(bottom, bottom_series, top_series.size(), "outside right top box Left reverse");
  f.body += "unset multiplot\n";
  return f;
}

}  // namespace attnlab::plot
