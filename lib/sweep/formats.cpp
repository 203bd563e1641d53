#include "sweep/formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/text.hpp"
#include "sweep/override_grammar.hpp"

namespace attnlab::sweep {

using nlohmann::json;

namespace {

// Columns of the terminal, not bytes: "±" is two bytes of UTF-8.
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string pad(const std::string& s, std::size_t width, bool left) {
  const std::string fill(width > display_width(s) ? width - display_width(s) : 0, ' ');
  return left ? s + fill : fill + s;
}

std::string heading(const Group& g) {
  std::string out;
  for (const auto& [k, v] : g.params) out += (out.empty() ? "" : ", ") + k + "=" + show(v);
  return out;
}

std::string no_rows_note(const Group& g) {
  if (g.ok == 0) return fmt::format("no finished run ({} failed, {} not run)\n", g.failed, g.pending);
  return "no figures to aggregate (its figures are wall-clock times: add --times)\n";
}

// The cells of a group's table as strings: header first, then one per row.
struct Grid {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  bool has_label = false;
};

Grid grid_of(const Group& g) {
  Grid grid;
  grid.has_label = !g.layout.label_header.empty();
  for (const auto& r : g.rows) grid.has_label = grid.has_label || !r.label.empty();
  if (grid.has_label) grid.header.push_back(g.layout.label_header);
  for (const auto& c : g.layout.columns) grid.header.push_back(c.header);
  grid.header.push_back("n");
  for (const auto& r : g.rows) {
    std::vector<std::string> cells;
    if (grid.has_label) cells.push_back(r.label);
    for (std::size_t c = 0; c < g.layout.columns.size(); ++c) cells.push_back(format_cell(g.layout.columns[c], r.cells[c]));
    cells.push_back(std::to_string(r.n));
    grid.rows.push_back(std::move(cells));
  }
  return grid;
}

std::string render_text(const std::vector<Group>& groups) {
  std::string out;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    if (gi) out += "\n";
    if (!g.params.empty()) out += "== " + heading(g) + " ==\n";
    if (g.rows.empty() || g.layout.columns.empty()) {
      out += no_rows_note(g);
      continue;
    }
    const Grid grid = grid_of(g);
    std::vector<std::size_t> width(grid.header.size());
    for (std::size_t c = 0; c < width.size(); ++c) {
      width[c] = display_width(grid.header[c]);
      for (const auto& r : grid.rows) width[c] = std::max(width[c], display_width(r[c]));
    }
    auto line = [&](const std::vector<std::string>& cells) {
      std::string l;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const bool left = grid.has_label && c == 0 && g.layout.label_left;
        l += (c ? "  " : "") + pad(cells[c], width[c], left);
      }
      while (!l.empty() && l.back() == ' ') l.pop_back();
      return l + "\n";
    };
    out += line(grid.header);
    for (const auto& r : grid.rows) out += line(r);
  }
  return out;
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string render_markdown(const std::vector<Group>& groups) {
  std::string out;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    if (gi) out += "\n";
    if (!g.params.empty()) out += "### " + md_escape(heading(g)) + "\n\n";
    if (g.rows.empty() || g.layout.columns.empty()) {
      out += no_rows_note(g);
      continue;
    }
    const Grid grid = grid_of(g);
    std::string head = "|", rule = "|";
    for (std::size_t c = 0; c < grid.header.size(); ++c) {
      head += " " + md_escape(grid.header[c]) + " |";
      rule += grid.has_label && c == 0 && g.layout.label_left ? ":---|" : "---:|";
    }
    out += head + "\n" + rule + "\n";
    for (const auto& r : grid.rows) {
      std::string l = "|";
      for (const auto& cell : r) l += " " + md_escape(cell) + " |";
      out += l + "\n";
    }
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The status a run shows in csv and jsonl.
std::string run_status(const RunState& s) {
  switch (s.status) {
    case Status::done: return "ok";
    case Status::failed: return "failed";
    case Status::diverged: return "diverged";
    default: return "pending";
  }
}

// Every column (by key) any finished run's table has, in order of appearance.
std::vector<report::Column> metric_columns(const std::vector<RunState>& states, bool with_times) {
  std::vector<report::Column> cols;
  for (const auto& s : states) {
    if (s.status != Status::done) continue;
    for (const auto& c : table_of(s.result).columns) {
      if (c.timing && !with_times) continue;
      if (std::none_of(cols.begin(), cols.end(), [&](const report::Column& k) { return k.key == c.key; }))
        cols.push_back(c);
    }
  }
  return cols;
}

std::string render_csv(const Plan& plan, const std::vector<RunState>& states, bool with_times) {
  const auto cols = metric_columns(states, with_times);
  std::string out = "run,status";
  for (const auto& a : plan.axes) out += "," + csv_field("params." + a.key);
  out += ",row";
  for (const auto& c : cols) out += "," + csv_field("metrics." + c.key);
  out += "\n";
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const auto& run = plan.runs[i];
    std::string prefix = run.hash + "," + run_status(states[i]);
    for (const auto& [k, v] : run.params) prefix += "," + csv_field(show(v));
    const report::Table t = states[i].status == Status::done ? table_of(states[i].result) : report::Table{};
    if (t.labels.empty()) {
      out += prefix + "," + std::string(cols.size(), ',') + "\n";
      continue;
    }
    for (std::size_t r = 0; r < t.labels.size(); ++r) {
      std::string line = prefix + "," + csv_field(t.labels[r]);
      for (const auto& c : cols) {
        line += ",";
        for (std::size_t k = 0; k < t.columns.size(); ++k)
          if (t.columns[k].key == c.key) line += format_number(t.values[r][k]);
      }
      out += line + "\n";
    }
  }
  return out;
}

json params_object(const PlannedRun& run) {
  json p = json::object();
  for (const auto& [k, v] : run.params) p[k] = v;
  return p;
}

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string render_jsonl(const Plan& plan, const std::vector<RunState>& states, bool with_times) {
  std::string out;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const auto& run = plan.runs[i];
    json o = {{"run", run.hash}, {"index", run.index}, {"status", run_status(states[i])}, {"params", params_object(run)}};
    if (is_failure(states[i].status)) o["error"] = states[i].result.value("error", "");
    json rows = json::array();
    if (states[i].status == Status::done) {
      const report::Table t = table_of(states[i].result);
      for (std::size_t r = 0; r < t.labels.size(); ++r) {
        json metrics = json::object();
        for (std::size_t k = 0; k < t.columns.size(); ++k)
          if (!t.columns[k].timing || with_times) metrics[t.columns[k].key] = number(t.values[r][k]);
        rows.push_back({{"row", t.labels[r]}, {"metrics", metrics}});
      }
    }
    o["rows"] = rows;
    out += o.dump() + "\n";
  }
  return out;
}

std::string render_json(const Plan& plan, const std::vector<RunState>& states, const std::vector<Group>& groups) {
  json axes = json::object();
  for (const auto& a : plan.axes) axes[a.key] = a.values;
  std::size_t done = 0, failed = 0;
  json failures = json::array();
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    done += states[i].status == Status::done;
    if (is_failure(states[i].status)) {
      ++failed;
      failures.push_back({{"run", plan.runs[i].hash}, {"index", plan.runs[i].index},
                          {"params", params_object(plan.runs[i])}, {"status", run_status(states[i])},
                          {"error", states[i].result.value("error", "")}});
    }
  }
  json tables = json::array();
  for (const auto& g : groups) {
    json params = json::object();
    for (const auto& [k, v] : g.params) params[k] = v;
    json columns = json::array(), rows = json::array();
    for (const auto& c : g.layout.columns) columns.push_back({{"header", c.header}, {"key", c.key}});
    for (const auto& r : g.rows) {
      json metrics = json::object();
      for (std::size_t c = 0; c < g.layout.columns.size(); ++c)
        metrics[g.layout.columns[c].key] = {{"mean", number(r.cells[c].mean)}, {"std", number(r.cells[c].std)}};
      rows.push_back({{"row", r.label}, {"n", r.n}, {"metrics", metrics}});
    }
    tables.push_back({{"params", params}, {"ok", g.ok}, {"failed", g.failed}, {"pending", g.pending},
                      {"label", g.layout.label_header}, {"columns", columns}, {"rows", rows}});
  }
  const json doc = {{"attnlab", ATTNLAB_VERSION},
                    {"spec", plan.spec_file},
                    {"experiment", plan.kind},
                    {"axes", axes},
                    {"runs", {{"total", plan.runs.size()}, {"done", done}, {"failed", failed},
                              {"pending", plan.runs.size() - done - failed}}},
                    {"tables", tables},
                    {"failed", failures}};
  return doc.dump(2) + "\n";
}

}  // namespace

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"text", "markdown", "csv", "jsonl", "json"};
  return names;
}

std::string format_cell(const report::Column& column, const Summary& s) {
  if (s.n == 0) return "-";
  const std::string mean = report::printf(column.format.c_str(), s.mean);
  if (s.n == 1) return mean;
  return mean + " ± " + report::printf(column.format.c_str(), s.std);
}

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return json(v).dump();  // shortest round-trip form
}

std::string render(const std::string& format, const Plan& plan, const std::vector<RunState>& states,
                   bool with_times) {
  if (format == "csv") return render_csv(plan, states, with_times);
  if (format == "jsonl") return render_jsonl(plan, states, with_times);
  const auto groups = aggregate(plan, states, with_times);
  if (format == "markdown") return render_markdown(groups);
  if (format == "json") return render_json(plan, states, groups);
  return render_text(groups);
}

}  // namespace attnlab::sweep
