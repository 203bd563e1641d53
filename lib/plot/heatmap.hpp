// Heatmaps of attention weights (rows = queries, read top to bottom as the
// tables print them), masks and the sinusoidal table, each cell labelled
// with its value.
#pragma once

#include <string>
#include <vector>

#include "plot/figure.hpp"

namespace attnlab::plot {

struct Heatmap {
  std::string title;                        // above the map
  std::vector<std::vector<double>> values;  // (rows, columns): row 0 is drawn on top
  std::vector<std::string> row_labels, column_labels;  // one per row / column
  std::string xlabel = "key position", ylabel = "query position";
  double low = 0, high = 1;                 // the colour range
  bool diverging = false;                   // blue (low) through white to red (high), else white to blue
  std::string value_format = "%.2f";        // printf format of each cell's label; "" for none
};

/// One heatmap as a figure (its size grows with the cells, 56 px each).
/// Throws std::invalid_argument for a ragged or empty matrix, or labels
/// that do not match it.
Figure heatmap(std::string name, std::string caption, const Heatmap& h);

/// Several heatmaps of one size side by side (the per-head weights), one
/// block of NAME.dat each.
Figure heatmap_panels(std::string name, std::string caption, const std::string& title,
                      const std::vector<Heatmap>& panels);

}  // namespace attnlab::plot
