#include "plot/heatmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace attnlab::plot {

namespace {

constexpr int kCell = 56;  // pixels per cell: room for "0.25" in 11-point DejaVu

void check(const Heatmap& h) {
  if (h.values.empty() || h.values[0].empty()) throw std::invalid_argument("heatmap '" + h.title + "': no cells");
  for (const auto& row : h.values)
    if (row.size() != h.values[0].size()) throw std::invalid_argument("heatmap '" + h.title + "': ragged rows");
  if (h.row_labels.size() != h.values.size() || h.column_labels.size() != h.values[0].size())
    throw std::invalid_argument("heatmap '" + h.title + "': labels do not match the cells");
}

std::string matrix_block(const Heatmap& h) {
  std::string out;
  for (const auto& row : h.values) {
    for (std::size_t j = 0; j < row.size(); ++j) out += (j ? " " : "") + number(row[j]);
    out += "\n";
  }
  return out;
}

// The commands of one map; `index` selects its block of the data file.
std::string map_commands(const Heatmap& h, const std::string& index, bool colorbox) {
  const std::size_t rows = h.values.size(), cols = h.values[0].size();
  std::string s;
  s += "set title " + quoted(h.title) + "\n";
  s += fmt::format("set xrange [-0.5:{}]\nset yrange [{}:-0.5]\n", cols - 0.5, rows - 0.5);
  s += tics("x", h.column_labels) + tics("y", h.row_labels);
  s += "set xtics scale 0\nset ytics scale 0\n";
  // Two-line column ticks (token over position) push the axis name down a line.
  const bool two_line = std::any_of(h.column_labels.begin(), h.column_labels.end(),
                                    [](const std::string& l) { return l.find('\n') != std::string::npos; });
  s += "set xlabel " + quoted(h.xlabel) + (two_line ? " offset 0,-1" : "") + "\nset ylabel " + quoted(h.ylabel) + "\n";
  s += fmt::format("set cbrange [{}:{}]\n", number(h.low), number(h.high));
  s += h.diverging ? "set palette defined (0 \"#2166ac\", 0.5 \"white\", 1 \"#b2182b\")\n"
                   : "set palette defined (0 \"white\", 0.5 \"#6baed6\", 1 \"#08306b\")\n";
  s += colorbox ? "set colorbox\n" : "unset colorbox\n";
  // Dark cells take white numbers: beyond 60% of the way to either dark end.
  const double span = h.high - h.low;
  const std::string dark = h.diverging ? fmt::format("abs($3 - {}) > {}", number(h.low + span / 2), number(span * 0.3))
                                       : fmt::format("$3 > {}", number(h.low + span * 0.6));
  s += "plot DATA" + index + " matrix with image pixels notitle";
  if (!h.value_format.empty()) {
    const std::string fmt_q = quoted(h.value_format);
    s += fmt::format(", \\\n     DATA{0} matrix using 1:2:({1} ? sprintf({2}, $3) : \"\") with labels tc rgb \"white\" notitle", index, dark, fmt_q);
    s += fmt::format(", \\\n     DATA{0} matrix using 1:2:({1} ? \"\" : sprintf({2}, $3)) with labels tc rgb \"black\" notitle", index, dark, fmt_q);
  }
  return s + "\n";
}

int label_room(const std::vector<std::string>& labels) {
  std::size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  return static_cast<int>(longest) * 8;
}

}  // namespace

Figure heatmap(std::string name, std::string caption, const Heatmap& h) {
  check(h);
  Figure f{.name = std::move(name), .caption = std::move(caption)};
  f.data = matrix_block(h);
  f.body = "set size ratio -1\n" + map_commands(h, "", true);
  const int rows = static_cast<int>(h.values.size()), cols = static_cast<int>(h.values[0].size());
  f.width = std::max(480, 190 + label_room(h.row_labels) + kCell * cols);
  f.height = std::max(360, 150 + kCell * rows);
  return f;
}

Figure heatmap_panels(std::string name, std::string caption, const std::string& title,
                      const std::vector<Heatmap>& panels) {
  if (panels.empty()) throw std::invalid_argument("heatmap panels '" + title + "': none");
  Figure f{.name = std::move(name), .caption = std::move(caption)};
  for (std::size_t k = 0; k < panels.size(); ++k) {
    check(panels[k]);
    f.data += (k ? "\n\n" : "") + matrix_block(panels[k]);
  }
  const int n = static_cast<int>(panels.size());
  const int rows = static_cast<int>(panels[0].values.size()), cols = static_cast<int>(panels[0].values[0].size());
  const int per_row = std::min(n, 2);
  const int grid_rows = (n + per_row - 1) / per_row;
  f.width = per_row * (150 + kCell * cols) + 60;
  f.height = grid_rows * (130 + kCell * rows) + 40;
  f.body = fmt::format("set multiplot layout {},{} title {}\nset size ratio -1\n", grid_rows, per_row, quoted(title));
  for (int k = 0; k < n; ++k) f.body += map_commands(panels[k], fmt::format(" index {}", k), true);
  f.body += "unset multiplot\n";
  return f;
}

}  // namespace attnlab::plot
