// A kind's measured table in a form a program can read: the label column,
// the figure columns with their printf formats, and the figures themselves.
// `attnlab sweep` aggregates these over seeds in the kind's own layout
// (mean ± std per figure) without parsing the printed text.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnlab::report {

/// One figure column of a table.
struct Column {
  std::string header;   // as the printed table heads it: "accuracy", "max weight"
  std::string key;      // its name in CSV and JSON (metrics.<key>): "accuracy", "max_weight"
  std::string format;   // printf format of one value, as a double: "%.4f", "%.0f", "%.1fms"
  bool timing = false;  // a wall-clock figure, which differs from run to run
};

/// A table of figures: one row per label, one value per column.
struct Table {
  std::string label_header;  // the first column's header ("hidden size"; may be "")
  bool label_left = false;   // text labels are printed left-aligned, numbers right-aligned
  std::vector<Column> columns;
  std::vector<std::string> labels;          // (rows) each row's first cell as printed, trimmed
  std::vector<std::vector<double>> values;  // (rows, columns)

  /// Appends a row; `figures` holds one value per column (checked).
  void add_row(std::string label, std::vector<double> figures);
  bool empty() const { return columns.empty() && labels.empty(); }
};

/// {"label": HEADER, "label_left": BOOL, "columns": [{"header", "key",
/// "format", "timing"}], "rows": [{"label": L, "values": [..]}]}.
nlohmann::json to_json(const Table& t);

/// The inverse of to_json. Throws std::invalid_argument naming what is
/// missing or of the wrong type (a result file edited by hand).
Table table_from_json(const nlohmann::json& j);

}  // namespace attnlab::report
